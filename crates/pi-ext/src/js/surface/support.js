// Stand-ins for what the reference's packages export and pi's engine does not
// provide (crates/pi-ext/src/js/surface/*.js, generated): an extension that
// imports one loads; calling or constructing it throws an error that names it.

const WHY = "is not available in pi's extension engine (see docs/extensions.md, \"Differences\")";

/** A function (and constructor) that throws, naming `name` of `module`. */
export function unavailable(module, name) {
  return function () {
    throw new Error(`${name} from "${module}" ${WHY}`);
  };
}

/** `members` frozen (a namespace object of the reference's). */
export function frozen(members) {
  return Object.freeze(members);
}

/** `own` (a Node module's default export pi provides) with the names of `rest` it lacks. */
export function filled(own, rest) {
  for (const key of Object.keys(rest)) if (!(key in own)) own[key] = rest[key];
  return own;
}
