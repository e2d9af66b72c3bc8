// Node's globals over the host's `__pi_node` functions: EventEmitter (for
// `node:events`, `process` and child processes), Buffer, process,
// TextEncoder/TextDecoder, setImmediate, and the child-process event table.
// Evaluated once per extension, after the glue and before its module.
(function (config) {
  "use strict";
  const node = globalThis.__pi_node;
  const define = (obj, name, value) =>
    Object.defineProperty(obj, name, { value, enumerable: false, configurable: true, writable: true });

  // ---------------------------------------------------------------- errors
  function nodeError(fields) {
    const e = new Error(fields.message);
    for (const k of Object.keys(fields)) if (k !== "message") e[k] = fields[k];
    return e;
  }
  function argError(name, expected, value) {
    const e = new TypeError(`The "${name}" argument must be ${expected}. Received ${value === null ? "null" : typeof value}`);
    e.code = "ERR_INVALID_ARG_TYPE";
    return e;
  }

  // ---------------------------------------------------------------- EventEmitter
  class EventEmitter {
    constructor() {
      define(this, "_events", new Map());
      define(this, "_max", 10);
    }
    _list(name) {
      if (!this._events) define(this, "_events", new Map());
      if (!this._events.has(name)) this._events.set(name, []);
      return this._events.get(name);
    }
    on(name, fn) {
      if (typeof fn !== "function") throw argError("listener", "of type function", fn);
      this._list(name).push({ fn, once: false });
      return this;
    }
    addListener(name, fn) {
      return this.on(name, fn);
    }
    prependListener(name, fn) {
      this._list(name).unshift({ fn, once: false });
      return this;
    }
    once(name, fn) {
      if (typeof fn !== "function") throw argError("listener", "of type function", fn);
      this._list(name).push({ fn, once: true });
      return this;
    }
    off(name, fn) {
      const list = this._list(name);
      const i = list.findIndex((l) => l.fn === fn);
      if (i >= 0) list.splice(i, 1);
      return this;
    }
    removeListener(name, fn) {
      return this.off(name, fn);
    }
    removeAllListeners(name) {
      if (name === undefined) this._events = new Map();
      else this._events && this._events.delete(name);
      return this;
    }
    emit(name, ...args) {
      const list = this._events && this._events.get(name);
      if (!list || list.length === 0) {
        if (name === "error") throw args[0] instanceof Error ? args[0] : new Error(`Unhandled error. (${String(args[0])})`);
        return false;
      }
      for (const l of list.slice()) {
        if (l.once) this.off(name, l.fn);
        l.fn.apply(this, args);
      }
      return true;
    }
    listenerCount(name) {
      const list = this._events && this._events.get(name);
      return list ? list.length : 0;
    }
    listeners(name) {
      const list = this._events && this._events.get(name);
      return list ? list.map((l) => l.fn) : [];
    }
    rawListeners(name) {
      return this.listeners(name);
    }
    eventNames() {
      return this._events ? [...this._events.keys()].filter((k) => this._events.get(k).length > 0) : [];
    }
    setMaxListeners(n) {
      this._max = n;
      return this;
    }
    getMaxListeners() {
      return this._max;
    }
  }
  EventEmitter.EventEmitter = EventEmitter;
  EventEmitter.defaultMaxListeners = 10;
  EventEmitter.once = (emitter, name) =>
    new Promise((resolve, reject) => {
      emitter.once(name, (...args) => resolve(args));
      if (name !== "error") emitter.once("error", reject);
    });

  // ---------------------------------------------------------------- Buffer
  const HEX = "0123456789abcdef";
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  function toLatin1(bytes) {
    let out = "";
    for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
    return out;
  }
  function fromLatin1(s) {
    const b = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i) & 255;
    return b;
  }
  function encodeBase64(bytes, url) {
    let out = "";
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
      out += i + 1 < bytes.length ? B64[(n >> 6) & 63] : "=";
      out += i + 2 < bytes.length ? B64[n & 63] : "=";
    }
    return url ? out.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "") : out;
  }
  function decodeBase64(s) {
    const clean = String(s).replace(/-/g, "+").replace(/_/g, "/").replace(/[^A-Za-z0-9+/]/g, "");
    const out = [];
    let bits = 0;
    let acc = 0;
    for (const c of clean) {
      acc = (acc << 6) | B64.indexOf(c);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out.push((acc >> bits) & 255);
      }
    }
    return new Uint8Array(out);
  }
  function normEncoding(enc) {
    const e = String(enc || "utf8").toLowerCase();
    if (e === "utf-8") return "utf8";
    if (e === "binary") return "latin1";
    if (e === "ucs2" || e === "ucs-2" || e === "utf-16le") return "utf16le";
    return e;
  }
  function encode(string, encoding) {
    const enc = normEncoding(encoding);
    const s = String(string);
    if (enc === "utf8") return node.utf8Encode(s);
    if (enc === "hex") {
      const out = new Uint8Array(s.length >> 1);
      for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(i * 2, 2), 16) || 0;
      return out;
    }
    if (enc === "base64" || enc === "base64url") return decodeBase64(s);
    if (enc === "latin1" || enc === "ascii") return fromLatin1(s);
    if (enc === "utf16le") {
      const out = new Uint8Array(s.length * 2);
      for (let i = 0; i < s.length; i++) {
        out[i * 2] = s.charCodeAt(i) & 255;
        out[i * 2 + 1] = s.charCodeAt(i) >> 8;
      }
      return out;
    }
    const e = new TypeError(`Unknown encoding: ${encoding}`);
    e.code = "ERR_UNKNOWN_ENCODING";
    throw e;
  }
  function decode(bytes, encoding) {
    const enc = normEncoding(encoding);
    if (enc === "utf8") return node.utf8Decode(toLatin1(bytes));
    if (enc === "hex") {
      let out = "";
      for (const b of bytes) out += HEX[b >> 4] + HEX[b & 15];
      return out;
    }
    if (enc === "base64") return encodeBase64(bytes, false);
    if (enc === "base64url") return encodeBase64(bytes, true);
    if (enc === "latin1") return toLatin1(bytes);
    if (enc === "ascii") return toLatin1(bytes.map((b) => b & 127));
    if (enc === "utf16le") {
      let out = "";
      for (let i = 0; i + 1 < bytes.length; i += 2) out += String.fromCharCode(bytes[i] | (bytes[i + 1] << 8));
      return out;
    }
    const e = new TypeError(`Unknown encoding: ${encoding}`);
    e.code = "ERR_UNKNOWN_ENCODING";
    throw e;
  }

  class Buffer extends Uint8Array {
    static from(value, encodingOrOffset, length) {
      if (typeof value === "string") return Buffer._wrap(encode(value, encodingOrOffset));
      if (value instanceof ArrayBuffer) {
        const off = encodingOrOffset || 0;
        return new Buffer(value, off, length === undefined ? value.byteLength - off : length);
      }
      if (ArrayBuffer.isView(value)) return Buffer._wrap(new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice());
      if (Array.isArray(value)) return Buffer._wrap(Uint8Array.from(value, (x) => Number(x) & 255));
      if (value && value.type === "Buffer" && Array.isArray(value.data)) return Buffer.from(value.data);
      throw argError("first argument", "of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object", value);
    }
    static _wrap(u8) {
      return new Buffer(u8.buffer, u8.byteOffset, u8.byteLength);
    }
    static alloc(size, fill) {
      const b = new Buffer(Math.max(0, Number(size) || 0));
      if (fill !== undefined) b.fill(typeof fill === "string" ? fill.charCodeAt(0) : fill);
      return b;
    }
    static allocUnsafe(size) {
      return Buffer.alloc(size);
    }
    static isBuffer(b) {
      return b instanceof Buffer;
    }
    static isEncoding(e) {
      return ["utf8", "hex", "base64", "base64url", "latin1", "ascii", "utf16le"].includes(normEncoding(e));
    }
    static byteLength(value, encoding) {
      if (typeof value !== "string") return value.byteLength;
      return encode(value, encoding).length;
    }
    static concat(list, total) {
      const len = total === undefined ? list.reduce((n, b) => n + b.length, 0) : total;
      const out = Buffer.alloc(len);
      let off = 0;
      for (const b of list) {
        if (off >= len) break;
        out.set(b.subarray(0, len - off), off);
        off += b.length;
      }
      return out;
    }
    static compare(a, b) {
      return a.compare(b);
    }
    toString(encoding, start, end) {
      const s = start || 0;
      const e = end === undefined ? this.length : end;
      return decode(this.subarray(s, e), encoding);
    }
    toJSON() {
      return { type: "Buffer", data: Array.from(this) };
    }
    equals(other) {
      return this.compare(other) === 0;
    }
    compare(other) {
      const n = Math.min(this.length, other.length);
      for (let i = 0; i < n; i++) if (this[i] !== other[i]) return this[i] < other[i] ? -1 : 1;
      return this.length === other.length ? 0 : this.length < other.length ? -1 : 1;
    }
    write(string, offset) {
      const bytes = encode(string, "utf8");
      const off = offset || 0;
      const n = Math.min(bytes.length, this.length - off);
      this.set(bytes.subarray(0, n), off);
      return n;
    }
    slice(start, end) {
      return this.subarray(start, end);
    }
    subarray(start, end) {
      const u = Uint8Array.prototype.subarray.call(this, start, end);
      return new Buffer(u.buffer, u.byteOffset, u.byteLength);
    }
    indexOf(value, from) {
      const needle = typeof value === "string" ? encode(value) : typeof value === "number" ? [value] : value;
      outer: for (let i = from || 0; i <= this.length - needle.length; i++) {
        for (let j = 0; j < needle.length; j++) if (this[i + j] !== needle[j]) continue outer;
        return i;
      }
      return -1;
    }
    includes(value, from) {
      return this.indexOf(value, from) !== -1;
    }
    readUInt8(o) {
      return this[o || 0];
    }
    readUInt16LE(o) {
      return this[o] | (this[o + 1] << 8);
    }
    readUInt32LE(o) {
      return (this[o] | (this[o + 1] << 8) | (this[o + 2] << 16)) + this[o + 3] * 0x1000000;
    }
    readInt32LE(o) {
      return this[o] | (this[o + 1] << 8) | (this[o + 2] << 16) | (this[o + 3] << 24);
    }
  }
  Buffer.prototype.readUint8 = Buffer.prototype.readUInt8;
  Buffer.prototype.readUint16LE = Buffer.prototype.readUInt16LE;
  Buffer.prototype.readUint32LE = Buffer.prototype.readUInt32LE;
  define(globalThis, "Buffer", Buffer);

  if (typeof globalThis.TextEncoder !== "function") {
    class TextEncoder {
      get encoding() {
        return "utf-8";
      }
      encode(s) {
        return node.utf8Encode(s === undefined ? "" : String(s));
      }
    }
    class TextDecoder {
      constructor(encoding) {
        this.encoding = normEncoding(encoding) === "utf8" ? "utf-8" : String(encoding);
      }
      decode(bytes) {
        if (bytes === undefined) return "";
        const u = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        return decode(u, this.encoding);
      }
    }
    define(globalThis, "TextEncoder", TextEncoder);
    define(globalThis, "TextDecoder", TextDecoder);
  }
  if (typeof globalThis.atob !== "function") {
    define(globalThis, "btoa", (s) => encodeBase64(fromLatin1(String(s)), false));
    define(globalThis, "atob", (s) => toLatin1(decodeBase64(s)));
  }

  // ---------------------------------------------------------------- process
  const info = JSON.parse(node.process());
  const start = Date.now();
  const processObject = new EventEmitter();
  const writer = (fd) => ({
    write(chunk, encoding, cb) {
      // Extensions share pi's streams: text goes to stderr so print, JSON and RPC output stays clean.
      const text = typeof chunk === "string" ? chunk : decode(chunk, "utf8");
      globalThis.console.error(text.replace(/\n$/, ""));
      const done = typeof encoding === "function" ? encoding : cb;
      if (typeof done === "function") queueMicrotask(done);
      return true;
    },
    isTTY: false,
    columns: 80,
    rows: 24,
    fd,
    on() {
      return this;
    },
    once() {
      return this;
    },
    off() {
      return this;
    },
  });
  Object.assign(processObject, {
    env: info.env,
    argv: info.argv,
    argv0: info.argv[0],
    execArgv: [],
    execPath: info.execPath,
    pid: info.pid,
    ppid: info.ppid,
    platform: info.platform,
    arch: JSON.parse(node.os()).arch,
    version: "v22.0.0",
    versions: { node: "22.0.0", pi: "rs" },
    release: { name: "node" },
    title: "pi",
    exitCode: undefined,
    stdout: writer(1),
    stderr: writer(2),
    stdin: { isTTY: false, fd: 0, on() { return this; }, once() { return this; }, off() { return this; } },
    cwd: () => config.cwd,
    chdir() {
      const e = new Error("process.chdir() is not supported in pi's extension engine");
      e.code = "ERR_WORKER_UNSUPPORTED_OPERATION";
      throw e;
    },
    getuid: () => info.uid,
    getgid: () => info.gid,
    geteuid: () => info.uid,
    umask: () => 0o22,
    uptime: () => (Date.now() - start) / 1000,
    hrtime: Object.assign(
      (prev) => {
        const ms = performance.now();
        const t = [Math.floor(ms / 1000), Math.floor((ms % 1000) * 1e6)];
        if (!prev) return t;
        let s = t[0] - prev[0];
        let n = t[1] - prev[1];
        if (n < 0) {
          s -= 1;
          n += 1e9;
        }
        return [s, n];
      },
      { bigint: () => BigInt(Math.floor(performance.now() * 1e6)) },
    ),
    memoryUsage: () => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }),
    nextTick: (fn, ...args) => queueMicrotask(() => fn(...args)),
    emitWarning: (w) => globalThis.console.warn(`Warning: ${w instanceof Error ? w.message : String(w)}`),
    exit(code) {
      // An extension does not end pi: the exit is reported as an error of the code that asked for it.
      const e = new Error(`process.exit(${code === undefined ? "" : code}) called by an extension`);
      e.code = "ERR_PROCESS_EXIT";
      throw e;
    },
    kill: () => true,
    abort() {
      throw new Error("process.abort() called by an extension");
    },
  });
  define(globalThis, "process", processObject);
  if (typeof globalThis.global !== "object") define(globalThis, "global", globalThis);

  // ---------------------------------------------------------------- setImmediate
  const immediates = new Map();
  let nextImmediate = 1;
  define(globalThis, "setImmediate", (fn, ...args) => {
    const id = nextImmediate++;
    immediates.set(id, true);
    setTimeout(() => {
      if (immediates.delete(id)) fn(...args);
    }, 0);
    return id;
  });
  define(globalThis, "clearImmediate", (id) => immediates.delete(id));


  // ---------------------------------------------------------------- URL (WHATWG, the common parts)
  if (typeof globalThis.URL !== "function") {
    class URLSearchParams {
      constructor(init) {
        define(this, "_list", []);
        const s = typeof init === "string" ? init.replace(/^\?/, "") : "";
        if (s) for (const part of s.split("&")) {
          const [k, v = ""] = part.split("=");
          this._list.push([decodeURIComponent(k.replace(/\+/g, " ")), decodeURIComponent(v.replace(/\+/g, " "))]);
        }
        if (init && typeof init === "object") for (const [k, v] of Object.entries(init)) this._list.push([k, String(v)]);
      }
      get(k) {
        const e = this._list.find((x) => x[0] === k);
        return e ? e[1] : null;
      }
      getAll(k) {
        return this._list.filter((x) => x[0] === k).map((x) => x[1]);
      }
      has(k) {
        return this._list.some((x) => x[0] === k);
      }
      set(k, v) {
        this.delete(k);
        this._list.push([k, String(v)]);
      }
      append(k, v) {
        this._list.push([k, String(v)]);
      }
      delete(k) {
        this._list = this._list.filter((x) => x[0] !== k);
      }
      forEach(fn) {
        for (const [k, v] of this._list) fn(v, k, this);
      }
      entries() {
        return this._list[Symbol.iterator]();
      }
      [Symbol.iterator]() {
        return this._list[Symbol.iterator]();
      }
      toString() {
        return this._list.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
      }
    }
    const DEFAULT_PORTS = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443", "ftp:": "21" };
    class URL {
      constructor(input, base) {
        let s = String(input).trim();
        if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s)) {
          if (base === undefined) {
            const e = new TypeError("Invalid URL");
            e.code = "ERR_INVALID_URL";
            e.input = s;
            throw e;
          }
          const b = new URL(base);
          if (s.startsWith("//")) s = b.protocol + s;
          else if (s.startsWith("/")) s = `${b.protocol}//${b.host}${s}`;
          else if (s.startsWith("?")) s = `${b.protocol}//${b.host}${b.pathname}${s}`;
          else if (s.startsWith("#")) s = `${b.protocol}//${b.host}${b.pathname}${b.search}${s}`;
          else s = `${b.protocol}//${b.host}${b.pathname.replace(/[^/]*$/, "")}${s}`;
        }
        const m = /^([a-zA-Z][a-zA-Z0-9+.-]*:)(\/\/([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$/.exec(s);
        if (!m) {
          const e = new TypeError("Invalid URL");
          e.code = "ERR_INVALID_URL";
          throw e;
        }
        this.protocol = m[1].toLowerCase();
        const authority = m[3] || "";
        const at = authority.lastIndexOf("@");
        const userinfo = at >= 0 ? authority.slice(0, at) : "";
        this.username = userinfo.split(":")[0] || "";
        this.password = userinfo.split(":")[1] || "";
        const hostport = at >= 0 ? authority.slice(at + 1) : authority;
        const hp = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(hostport) || [hostport, hostport, ""];
        this.hostname = (hp[1] || "").toLowerCase();
        this.port = hp[2] && hp[2] !== DEFAULT_PORTS[this.protocol] ? hp[2] : "";
        const segs = [];
        for (const seg of (m[4] || (m[2] !== undefined ? "/" : "")).split("/")) {
          if (seg === "..") {
            if (segs.length > 1) segs.pop();
          } else if (seg !== ".") segs.push(seg);
        }
        this.pathname = segs.join("/") || (m[2] !== undefined ? "/" : "");
        this.search = m[5] && m[5] !== "?" ? m[5] : "";
        this.hash = m[6] && m[6] !== "#" ? m[6] : "";
        define(this, "searchParams", new URLSearchParams(this.search));
      }
      get host() {
        return this.port ? `${this.hostname}:${this.port}` : this.hostname;
      }
      get origin() {
        return this.protocol === "file:" ? "null" : `${this.protocol}//${this.host}`;
      }
      get href() {
        const auth = this.username ? `${this.username}${this.password ? `:${this.password}` : ""}@` : "";
        const slashes = this.protocol === "file:" || this.host || DEFAULT_PORTS[this.protocol] !== undefined ? "//" : "";
        return `${this.protocol}${slashes}${auth}${this.host}${this.pathname}${this.search}${this.hash}`;
      }
      toString() {
        return this.href;
      }
      toJSON() {
        return this.href;
      }
      static canParse(u, b) {
        try {
          new URL(u, b);
          return true;
        } catch {
          return false;
        }
      }
    }
    define(globalThis, "URL", URL);
    define(globalThis, "URLSearchParams", URLSearchParams);
  }

  // ---------------------------------------------------------------- Web Crypto (the random parts)
  if (typeof globalThis.crypto !== "object") {
    define(globalThis, "crypto", {
      randomUUID: () => node.randomUUID(),
      getRandomValues(array) {
        const b = node.randomBytes(array.byteLength);
        new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(b);
        return array;
      },
    });
  }

  // ---------------------------------------------------------------- children
  const children = new Map();
  define(node, "childEvent", (id, kind, payload) => {
    // Output may still come after the exit: a handler removes itself once both streams ended too.
    const c = children.get(id);
    if (c) c(kind, payload);
  });

  // ---------------------------------------------------------------- pi.exec
  // A command without a shell: {stdout, stderr, code, killed, truncated}; signal,
  // timeout (SIGTERM, then SIGKILL 5 s later), cwd, maxBuffer (default 256 MiB).
  define(node, "exec", (file, args, options) =>
    new Promise((resolve) => {
      const o = options || {};
      const env = {};
      for (const [k, v] of Object.entries(processObject.env)) if (v !== undefined) env[k] = String(v);
      const spec = { file: String(file), args: (args || []).map(String), cwd: o.cwd === undefined ? config.cwd : String(o.cwd), env, stdio: ["ignore", "pipe", "pipe"] };
      const r = JSON.parse(node.spawn(JSON.stringify(spec)));
      if (r.error) {
        resolve({ stdout: "", stderr: r.error.message, code: 127, killed: false, truncated: false });
        return;
      }
      const max = typeof o.maxBuffer === "number" && o.maxBuffer > 0 ? o.maxBuffer : 256 * 1024 * 1024;
      let out = "";
      let err = "";
      let killed = false;
      let truncated = false;
      let open = 2;
      let exit = null;
      const timers = [];
      const kill = () => {
        if (exit) return;
        killed = true;
        node.childKill(r.id, "SIGTERM");
        timers.push(setTimeout(() => node.childKill(r.id, "SIGKILL"), 5000));
      };
      const finish = () => {
        if (open > 0 || !exit) return;
        children.delete(r.id);
        for (const t of timers) clearTimeout(t);
        const code = exit.code !== null ? exit.code : 128 + (({ SIGTERM: 15, SIGKILL: 9, SIGINT: 2, SIGHUP: 1 })[exit.signal] || 15);
        resolve({ stdout: node.utf8Decode(out), stderr: node.utf8Decode(err), code, killed, truncated });
      };
      children.set(r.id, (kind, payload) => {
        if (kind === "stdout" || kind === "stderr") {
          if (out.length + err.length + payload.length > max) {
            truncated = true;
            payload = payload.slice(0, Math.max(0, max - out.length - err.length));
            kill();
          }
          if (kind === "stdout") out += payload;
          else err += payload;
        } else if (kind === "end-stdout" || kind === "end-stderr") {
          open -= 1;
          finish();
        } else if (kind === "exit") {
          exit = JSON.parse(payload);
          finish();
        }
      });
      if (typeof o.timeout === "number" && o.timeout > 0) timers.push(setTimeout(kill, o.timeout));
      if (o.signal) {
        if (o.signal.aborted) kill();
        else o.signal.addEventListener("abort", kill, { once: true });
      }
    }),
  );
  define(node, "lib", Object.freeze({ EventEmitter, Buffer, nodeError, argError, encode, decode, toLatin1, fromLatin1, children }));
});
