// CommonJS over the host's `__pi_cjs` functions: the module cache, `require`
// (CommonJS files, JSON, ES modules whose graph does not wait, pi's built-in
// modules), `module` / `exports`, `__filename` / `__dirname`, and
// `createRequire`. A module is cached before it runs, so a cycle sees the
// other side's `exports` as they are so far, as in Node.
(function (host) {
  "use strict";
  const cache = Object.create(null);
  const RESERVED = new Set(
    ("break case catch class const continue debugger default delete do else enum export extends false finally for " +
      "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
      "yield let static implements interface package private protected public await arguments eval").split(" "),
  );
  const IDENT = /^[A-Za-z_$][\w$]*$/;

  function builtinValue(name) {
    const ns = host.importSync(name);
    return name.startsWith("node:") && ns.default !== undefined ? ns.default : ns;
  }

  function esmValue(path) {
    const ns = host.importSync(path);
    return Object.prototype.hasOwnProperty.call(ns, "module.exports") ? ns["module.exports"] : ns;
  }

  function makeRequire(from) {
    const resolveSpec = (spec) => {
      if (typeof spec !== "string") {
        const e = new TypeError(`The "id" argument must be of type string. Received ${typeof spec}`);
        e.code = "ERR_INVALID_ARG_TYPE";
        throw e;
      }
      return JSON.parse(host.resolve(from, spec));
    };
    const require = function require(spec) {
      const r = resolveSpec(spec);
      if (r.builtin) return builtinValue(r.builtin);
      return load(r.path, r.format, from);
    };
    require.resolve = (spec) => {
      const r = resolveSpec(spec);
      return r.builtin ? String(spec).replace(/^node:/, "") : r.path;
    };
    require.resolve.paths = () => null;
    require.cache = cache;
    require.main = undefined;
    return require;
  }

  function load(path, format, parent) {
    const hit = cache[path];
    if (hit) return hit.exports;
    if (format === "esm") return esmValue(path);
    const module = {
      id: path,
      path: path.slice(0, path.lastIndexOf("/")) || "/",
      filename: path,
      loaded: false,
      exports: {},
      children: [],
      paths: [],
      parent: parent ?? null,
    };
    module.require = makeRequire(path);
    cache[path] = module;
    try {
      if (format === "json") {
        module.exports = JSON.parse(globalThis.__pi_node.readFile(path, true));
      } else {
        const fn = host.compile(path);
        fn.call(module.exports, module.exports, module.require, module, path, module.path);
      }
    } catch (e) {
      delete cache[path];
      throw e;
    }
    module.loaded = true;
    return module.exports;
  }

  // The named exports `import` gets from a CommonJS module.
  function names(exports) {
    if (exports === null || (typeof exports !== "object" && typeof exports !== "function")) return [];
    return Object.keys(exports).filter((k) => IDENT.test(k) && !RESERVED.has(k));
  }

  function toPath(from) {
    const s = String(from && from.href !== undefined ? from.href : from);
    return s.startsWith("file://") ? decodeURIComponent(s.slice(7)) : s;
  }

  globalThis.__pi_cjs = { load, names, makeRequire, createRequire: (from) => makeRequire(toPath(from)) };
})
