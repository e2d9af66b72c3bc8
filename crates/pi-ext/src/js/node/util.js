// node:util: promisify, callbackify, format, inspect (the common cases), inherits, types, deprecate.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-util";
const custom = Symbol.for("nodejs.util.promisify.custom");

export function promisify(fn) {
  if (typeof fn !== "function") {
    const e = new TypeError('The "original" argument must be of type function');
    e.code = "ERR_INVALID_ARG_TYPE";
    throw e;
  }
  if (fn[custom]) return fn[custom];
  return function (...args) {
    return new Promise((resolve, reject) => {
      fn.call(this, ...args, (err, value) => (err ? reject(err) : resolve(value)));
    });
  };
}
promisify.custom = custom;

export function callbackify(fn) {
  return (...args) => {
    const cb = args.pop();
    fn(...args).then((v) => cb(null, v), (e) => cb(e));
  };
}

function inspectValue(v, depth, seen) {
  if (typeof v === "string") return depth === 0 ? v : `'${v.replace(/'/g, "\\'")}'`;
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "symbol") return v.toString();
  if (typeof v === "function") return v.name ? `[Function: ${v.name}]` : "[Function (anonymous)]";
  if (v === null || typeof v !== "object") return String(v);
  if (seen.has(v)) return "[Circular *1]";
  if (v instanceof Error) return v.stack || `${v.name}: ${v.message}`;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof RegExp) return String(v);
  if (depth > 3) return Array.isArray(v) ? "[Array]" : "[Object]";
  seen.add(v);
  let out;
  if (Array.isArray(v)) {
    out = v.length === 0 ? "[]" : `[ ${v.map((x) => inspectValue(x, depth + 1, seen)).join(", ")} ]`;
  } else if (v instanceof Map) {
    out = `Map(${v.size}) {${[...v].map(([k, x]) => ` ${inspectValue(k, depth + 1, seen)} => ${inspectValue(x, depth + 1, seen)}`).join(",")}${v.size ? " " : ""}}`;
  } else if (v instanceof Set) {
    out = `Set(${v.size}) {${[...v].map((x) => ` ${inspectValue(x, depth + 1, seen)}`).join(",")}${v.size ? " " : ""}}`;
  } else {
    const keys = Object.keys(v);
    const body = keys.map((k) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`}: ${inspectValue(v[k], depth + 1, seen)}`);
    out = keys.length === 0 ? "{}" : `{ ${body.join(", ")} }`;
  }
  seen.delete(v);
  return out;
}
export function inspect(v) {
  return inspectValue(v, 1, new Set());
}
inspect.custom = Symbol.for("nodejs.util.inspect.custom");

export function format(f, ...args) {
  if (typeof f !== "string") return [f, ...args].map((a) => inspectValue(a, 0, new Set())).join(" ");
  let i = 0;
  let out = f.replace(/%[sdifjoO%]/g, (m) => {
    if (m === "%%") return "%";
    if (i >= args.length) return m;
    const a = args[i++];
    switch (m) {
      case "%s": return typeof a === "string" ? a : inspectValue(a, 1, new Set());
      case "%d": case "%i": return String(m === "%i" ? parseInt(a, 10) : Number(a));
      case "%f": return String(parseFloat(a));
      case "%j": try { return JSON.stringify(a); } catch { return "[Circular]"; }
      default: return inspectValue(a, 1, new Set());
    }
  });
  for (; i < args.length; i++) out += ` ${inspectValue(args[i], 0, new Set())}`;
  return out;
}
export function inherits(ctor, superCtor) {
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
  Object.setPrototypeOf(ctor, superCtor);
}
export function deprecate(fn) {
  return fn;
}
export function isDeepStrictEqual(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}
export function stripVTControlCharacters(s) {
  return String(s).replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "");
}
export const types = {
  isPromise: (v) => v instanceof Promise,
  isDate: (v) => v instanceof Date,
  isRegExp: (v) => v instanceof RegExp,
  isNativeError: (v) => v instanceof Error,
  isUint8Array: (v) => v instanceof Uint8Array,
  isMap: (v) => v instanceof Map,
  isSet: (v) => v instanceof Set,
};
export const TextEncoder = globalThis.TextEncoder, TextDecoder = globalThis.TextDecoder;
/** `util.debuglog(section)`: logs to stderr when `NODE_DEBUG` names the section, else nothing. */
export function debuglog(section, callback) {
  const names = String((globalThis.process && globalThis.process.env && globalThis.process.env.NODE_DEBUG) || "")
    .toUpperCase()
    .split(/[\s,]+/);
  const enabled = names.includes(String(section).toUpperCase()) || names.includes("*");
  const log = (...args) => {
    if (enabled) globalThis.console.error(`${String(section).toUpperCase()} ${globalThis.process.pid}: ${format(...args)}`);
  };
  Object.defineProperty(log, "enabled", { value: enabled });
  if (typeof callback === "function") callback(log);
  return log;
}
export const debug = debuglog;

export default filled({ debuglog, debug, promisify, callbackify, format, inspect, inherits, deprecate, isDeepStrictEqual, stripVTControlCharacters, types, TextEncoder, TextDecoder }, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-util.js).
export * from "pi:surface/node-util";
