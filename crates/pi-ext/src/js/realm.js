// The realm all extensions of one engine share (as Node.js gives every
// extension one global scope): console, timers and a few web APIs, the helpers
// the per-extension glue (bootstrap.js) uses, and the registry of loaded
// extensions. Evaluated once per engine, before any extension. `host` holds
// the realm's host functions (`log`, `timer`, `clearTimer`, `current`: the
// extension whose turn is running); `parts` the per-extension glue and the
// session parts (session.js), kept here for each extension that loads.
(function (host, config, parts) {
  "use strict";

  const define = (obj, name, value) =>
    Object.defineProperty(obj, name, { value, enumerable: false, configurable: true, writable: true });

  function safeString(value) {
    try {
      return String(value);
    } catch (_e) {
      return Object.prototype.toString.call(value);
    }
  }

  function errorMessage(error) {
    try {
      if (error instanceof Error) return safeString(error.message);
      return safeString(error);
    } catch (_e) {
      return "Unknown error";
    }
  }

  // Captured now: an extension that replaces JSON later does not break the glue.
  const jsonStringify = JSON.stringify.bind(JSON);
  const jsonParse = JSON.parse.bind(JSON);

  function toJson(value) {
    const text = jsonStringify(value === undefined ? null : value);
    return text === undefined ? "null" : text;
  }

  // ---------------------------------------------------------------- console
  function formatArg(arg) {
    if (typeof arg === "string") return arg;
    if (arg instanceof Error) return arg.stack ? `${arg.name}: ${arg.message}\n${arg.stack}` : `${arg.name}: ${arg.message}`;
    if (typeof arg === "object" && arg !== null) {
      try {
        return JSON.stringify(arg);
      } catch (_e) {
        return safeString(arg);
      }
    }
    return safeString(arg);
  }
  const log = (level) => (...args) => host.log(level, args.map(formatArg).join(" "));
  const consoleObject = {
    log: log("log"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    debug: log("debug"),
    trace: log("debug"),
  };
  define(globalThis, "console", consoleObject);

  // ---------------------------------------------------------------- timers
  const timers = new Map();
  let nextTimer = 1;
  // Node returns a Timeout object (unref/ref/hasRef/refresh); it converts to its id.
  class Timeout {
    constructor(id) {
      define(this, "_id", id);
    }
    ref() {
      return this;
    }
    unref() {
      return this;
    }
    hasRef() {
      return true;
    }
    refresh() {
      const t = timers.get(this._id);
      if (t) host.timer(this._id, t.delay);
      return this;
    }
    [Symbol.toPrimitive]() {
      return this._id;
    }
  }
  function addTimer(fn, ms, args, repeat) {
    if (typeof fn !== "function") throw new TypeError("The \"callback\" argument must be of type function");
    const id = nextTimer++;
    const delay = Math.max(0, Number(ms) || 0);
    timers.set(id, { fn, args, repeat, delay });
    host.timer(id, delay);
    return new Timeout(id);
  }
  function clearTimer(timer) {
    const id = timer instanceof Timeout ? timer._id : Number(timer);
    if (timers.delete(id)) host.clearTimer(id);
  }
  define(globalThis, "setTimeout", (fn, ms, ...args) => addTimer(fn, ms, args, false));
  define(globalThis, "setInterval", (fn, ms, ...args) => addTimer(fn, ms, args, true));
  define(globalThis, "clearTimeout", (id) => clearTimer(id));
  define(globalThis, "clearInterval", (id) => clearTimer(id));
  if (typeof globalThis.queueMicrotask !== "function") {
    define(globalThis, "queueMicrotask", (fn) => {
      Promise.resolve().then(fn);
    });
  }
  if (typeof globalThis.structuredClone !== "function") {
    define(globalThis, "structuredClone", (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value))));
  }

  // ---------------------------------------------------------------- AbortController
  if (typeof globalThis.AbortController !== "function") {
    class AbortSignal {
      constructor() {
        this.aborted = false;
        this.reason = undefined;
        this.onabort = null;
        define(this, "_listeners", []);
      }
      addEventListener(type, fn, options) {
        if (type !== "abort" || typeof fn !== "function") return;
        this._listeners.push({ fn, once: !!(options && options.once) });
      }
      removeEventListener(type, fn) {
        if (type !== "abort") return;
        const i = this._listeners.findIndex((l) => l.fn === fn);
        if (i >= 0) this._listeners.splice(i, 1);
      }
      throwIfAborted() {
        if (this.aborted) throw this.reason;
      }
      static abort(reason) {
        const c = new AbortController();
        c.abort(reason);
        return c.signal;
      }
      static timeout(ms) {
        const c = new AbortController();
        setTimeout(() => c.abort(abortError("The operation was aborted due to timeout", "TimeoutError")), ms);
        return c.signal;
      }
      static any(signals) {
        const c = new AbortController();
        for (const s of signals) {
          if (s.aborted) {
            c.abort(s.reason);
            break;
          }
          s.addEventListener("abort", () => c.abort(s.reason), { once: true });
        }
        return c.signal;
      }
    }
    function abortError(message, name) {
      const e = new Error(message);
      e.name = name || "AbortError";
      return e;
    }
    class AbortController {
      constructor() {
        this.signal = new AbortSignal();
      }
      abort(reason) {
        const s = this.signal;
        if (s.aborted) return;
        s.aborted = true;
        s.reason = reason === undefined ? abortError("This operation was aborted") : reason;
        const event = { type: "abort", target: s };
        try {
          if (typeof s.onabort === "function") s.onabort(event);
        } catch (e) {
          consoleObject.error(e);
        }
        for (const l of s._listeners.slice()) {
          if (l.once) s.removeEventListener("abort", l.fn);
          try {
            l.fn.call(s, event);
          } catch (e) {
            consoleObject.error(e);
          }
        }
      }
    }
    define(globalThis, "AbortController", AbortController);
    define(globalThis, "AbortSignal", AbortSignal);
  }
  if (typeof globalThis.performance !== "object" || typeof globalThis.performance.now !== "function") {
    const origin = Date.now();
    define(globalThis, "performance", { now: () => Date.now() - origin, timeOrigin: origin });
  }

  // ---------------------------------------------------------------- the extensions
  // Each loaded extension's functions Rust calls (bootstrap.js's `internal`), by id.
  const exts = Object.create(null);
  // `__pi_internal`: the extension whose code is running (pi's built-in
  // modules reach their caller's tool calls through it).
  Object.defineProperty(globalThis, "__pi_internal", { get: () => exts[host.current()], enumerable: false, configurable: false });

  // A timer is due: run it (as a turn of the extension that set it).
  function fireTimer(id) {
    const t = timers.get(id);
    if (!t) return;
    if (t.repeat) host.timer(id, t.delay);
    else timers.delete(id);
    try {
      t.fn(...t.args);
    } catch (e) {
      consoleObject.error(e);
    }
  }

  const realm = {
    cwd: config.cwd,
    version: config.version,
    console: consoleObject,
    define,
    safeString,
    errorMessage,
    jsonParse,
    toJson,
    exts,
    fireTimer,
    session: parts.session,
    makeExtension: parts.makeExtension,
    // The extension `id`: its functions, removed when it stops.
    extension: (id) => exts[id],
    forget(id) {
      delete exts[id];
    },
    // Extension modules evaluated in this realm, by path: a session
    // replacement runs their factories again in the same modules.
    modules: new Map(),
    // `pi.events`: one bus for the realm's extensions, by channel.
    eventBus: new Map(),
  };
  Object.defineProperty(globalThis, "__pi_realm", { value: Object.freeze(realm), enumerable: false, configurable: false, writable: false });
});
