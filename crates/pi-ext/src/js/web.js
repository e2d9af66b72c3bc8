// The web platform's classes packages reach for at load time: events
// (`Event`, `CustomEvent`, `EventTarget`), `Headers`, `Blob`/`File`, basic
// streams (`ReadableStream`, `WritableStream`, `TransformStream`),
// `Request`/`Response`, `navigator`. Network calls are not made from the
// engine: `fetch` rejects, and `WebSocket`, `MessageChannel` and
// `BroadcastChannel` throw when constructed, each saying so.
// Called on first use of one of them (js/lazy-globals.js).
(function (config) {
  "use strict";
  const define = (name, value) => {
    if (globalThis[name] === undefined)
      Object.defineProperty(globalThis, name, { value, enumerable: false, configurable: true, writable: true });
  };
  const NO_NETWORK = "is not available in pi's extension engine (see docs/extensions.md, \"Differences\")";

  // ------------------------------------------------------------ events
  class Event {
    constructor(type, init) {
      this.type = String(type);
      this.bubbles = !!(init && init.bubbles);
      this.cancelable = !!(init && init.cancelable);
      this.defaultPrevented = false;
      this.timeStamp = Date.now();
      this.target = null;
      this.currentTarget = null;
    }
    preventDefault() {
      if (this.cancelable) this.defaultPrevented = true;
    }
    stopPropagation() {}
    stopImmediatePropagation() {
      this._stopped = true;
    }
  }
  class CustomEvent extends Event {
    constructor(type, init) {
      super(type, init);
      this.detail = init && init.detail !== undefined ? init.detail : null;
    }
  }
  class EventTarget {
    #listeners = new Map();
    addEventListener(type, listener, options) {
      if (!listener) return;
      const list = this.#listeners.get(type) || [];
      if (list.some((l) => l.listener === listener)) return;
      list.push({ listener, once: !!(options && typeof options === "object" && options.once) });
      this.#listeners.set(type, list);
      const signal = options && typeof options === "object" ? options.signal : undefined;
      if (signal && typeof signal.addEventListener === "function") {
        signal.addEventListener("abort", () => this.removeEventListener(type, listener));
      }
    }
    removeEventListener(type, listener) {
      const list = this.#listeners.get(type);
      if (list) this.#listeners.set(type, list.filter((l) => l.listener !== listener));
    }
    dispatchEvent(event) {
      try {
        event.target = this;
        event.currentTarget = this;
      } catch {}
      for (const l of [...(this.#listeners.get(event.type) || [])]) {
        if (l.once) this.removeEventListener(event.type, l.listener);
        if (typeof l.listener === "function") l.listener.call(this, event);
        else if (l.listener && typeof l.listener.handleEvent === "function") l.listener.handleEvent(event);
        if (event._stopped) break;
      }
      const handler = this[`on${event.type}`];
      if (typeof handler === "function") handler.call(this, event);
      return !event.defaultPrevented;
    }
  }
  define("Event", Event);
  define("CustomEvent", CustomEvent);
  define("EventTarget", EventTarget);

  // ------------------------------------------------------------ Headers
  class Headers {
    #map = new Map();
    constructor(init) {
      if (!init) return;
      const entries = init instanceof Headers ? init.entries() : Array.isArray(init) ? init : Object.entries(init);
      for (const [k, v] of entries) this.append(k, v);
    }
    append(name, value) {
      const k = String(name).toLowerCase();
      const prev = this.#map.get(k);
      this.#map.set(k, prev === undefined ? String(value) : `${prev}, ${value}`);
    }
    set(name, value) {
      this.#map.set(String(name).toLowerCase(), String(value));
    }
    get(name) {
      const v = this.#map.get(String(name).toLowerCase());
      return v === undefined ? null : v;
    }
    has(name) {
      return this.#map.has(String(name).toLowerCase());
    }
    delete(name) {
      this.#map.delete(String(name).toLowerCase());
    }
    forEach(fn, thisArg) {
      for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
    }
    *entries() {
      yield* [...this.#map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    }
    *keys() {
      for (const [k] of this.entries()) yield k;
    }
    *values() {
      for (const [, v] of this.entries()) yield v;
    }
    [Symbol.iterator]() {
      return this.entries();
    }
  }
  define("Headers", Headers);

  // ------------------------------------------------------------ Blob, File
  const encoder = new TextEncoder();
  function bytesOf(part) {
    if (part instanceof Blob) return part._bytes;
    if (part instanceof ArrayBuffer) return new Uint8Array(part);
    if (ArrayBuffer.isView(part)) return new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
    return encoder.encode(String(part));
  }
  class Blob {
    constructor(parts, options) {
      const chunks = Array.from(parts || [], bytesOf);
      const size = chunks.reduce((n, c) => n + c.length, 0);
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const c of chunks) {
        bytes.set(c, at);
        at += c.length;
      }
      Object.defineProperty(this, "_bytes", { value: bytes, enumerable: false });
      this.type = options && options.type ? String(options.type).toLowerCase() : "";
    }
    get size() {
      return this._bytes.length;
    }
    async text() {
      return new TextDecoder().decode(this._bytes);
    }
    async arrayBuffer() {
      return this._bytes.slice().buffer;
    }
    async bytes() {
      return this._bytes.slice();
    }
    slice(start, end, type) {
      return new Blob([this._bytes.slice(start, end)], { type });
    }
    stream() {
      const bytes = this._bytes;
      return new ReadableStream({
        start(c) {
          c.enqueue(bytes);
          c.close();
        },
      });
    }
  }
  class File extends Blob {
    constructor(parts, name, options) {
      super(parts, options);
      this.name = String(name);
      this.lastModified = (options && options.lastModified) || Date.now();
    }
  }
  define("Blob", Blob);
  define("File", File);

  // ------------------------------------------------------------ streams
  class ReadableStream {
    #queue = [];
    #waiting = [];
    #closed = false;
    #error = undefined;
    #locked = false;
    constructor(source = {}) {
      const controller = {
        enqueue: (chunk) => {
          const w = this.#waiting.shift();
          if (w) w.resolve({ value: chunk, done: false });
          else this.#queue.push(chunk);
        },
        close: () => {
          this.#closed = true;
          for (const w of this.#waiting.splice(0)) w.resolve({ value: undefined, done: true });
        },
        error: (e) => {
          this.#error = e;
          for (const w of this.#waiting.splice(0)) w.reject(e);
        },
        desiredSize: 1,
      };
      this._pull = source.pull ? () => source.pull(controller) : null;
      this._cancel = source.cancel ? (r) => source.cancel(r) : null;
      if (source.start) Promise.resolve().then(() => source.start(controller)).catch((e) => controller.error(e));
    }
    get locked() {
      return this.#locked;
    }
    _read() {
      if (this.#queue.length) return Promise.resolve({ value: this.#queue.shift(), done: false });
      if (this.#error !== undefined) return Promise.reject(this.#error);
      if (this.#closed) return Promise.resolve({ value: undefined, done: true });
      const p = new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
      if (this._pull) Promise.resolve().then(this._pull);
      return p;
    }
    getReader() {
      if (this.#locked) throw new TypeError("ReadableStream is locked");
      this.#locked = true;
      const closed = new Promise(() => {});
      return {
        read: () => this._read(),
        releaseLock: () => {
          this.#locked = false;
        },
        cancel: async (reason) => this.cancel(reason),
        closed,
      };
    }
    async cancel(reason) {
      this.#closed = true;
      this.#queue.length = 0;
      if (this._cancel) await this._cancel(reason);
    }
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const { value, done } = await this._read();
        if (done) return;
        yield value;
      }
    }
    values() {
      return this[Symbol.asyncIterator]();
    }
    pipeThrough(transform) {
      this.pipeTo(transform.writable);
      return transform.readable;
    }
    async pipeTo(writable) {
      const writer = writable.getWriter();
      for await (const chunk of this) await writer.write(chunk);
      await writer.close();
    }
    static from(iterable) {
      return new ReadableStream({
        async start(c) {
          for await (const chunk of iterable) c.enqueue(chunk);
          c.close();
        },
      });
    }
  }
  class WritableStream {
    #sink;
    #locked = false;
    constructor(sink = {}) {
      this.#sink = sink;
      const controller = { error() {} };
      if (sink.start) sink.start(controller);
      this._controller = controller;
    }
    get locked() {
      return this.#locked;
    }
    getWriter() {
      this.#locked = true;
      const sink = this.#sink;
      const controller = this._controller;
      return {
        write: async (chunk) => sink.write && sink.write(chunk, controller),
        close: async () => sink.close && sink.close(),
        abort: async (reason) => sink.abort && sink.abort(reason),
        releaseLock: () => {
          this.#locked = false;
        },
        ready: Promise.resolve(),
        closed: new Promise(() => {}),
        desiredSize: 1,
      };
    }
  }
  class TransformStream {
    constructor(transformer = {}) {
      let readableController;
      this.readable = new ReadableStream({ start: (c) => (readableController = c) });
      const controller = {
        enqueue: (chunk) => readableController.enqueue(chunk),
        terminate: () => readableController.close(),
        error: (e) => readableController.error(e),
      };
      this.writable = new WritableStream({
        write: async (chunk) => {
          await Promise.resolve();
          if (transformer.transform) await transformer.transform(chunk, controller);
          else controller.enqueue(chunk);
        },
        close: async () => {
          await Promise.resolve();
          if (transformer.flush) await transformer.flush(controller);
          readableController.close();
        },
      });
      if (transformer.start) transformer.start(controller);
    }
  }
  class TextDecoderStream extends TransformStream {
    constructor(label) {
      const decoder = new TextDecoder(label);
      super({ transform: (chunk, c) => c.enqueue(decoder.decode(chunk, { stream: true })) });
    }
  }
  class TextEncoderStream extends TransformStream {
    constructor() {
      super({ transform: (chunk, c) => c.enqueue(encoder.encode(String(chunk))) });
    }
  }
  define("ReadableStream", ReadableStream);
  define("WritableStream", WritableStream);
  define("TransformStream", TransformStream);
  define("TextDecoderStream", TextDecoderStream);
  define("TextEncoderStream", TextEncoderStream);

  // ------------------------------------------------------------ Request, Response, fetch
  async function bodyBytes(body) {
    if (body === undefined || body === null) return new Uint8Array(0);
    if (body instanceof ReadableStream) {
      const parts = [];
      for await (const c of body) parts.push(c);
      return new Blob(parts)._bytes;
    }
    if (typeof URLSearchParams === "function" && body instanceof URLSearchParams) return encoder.encode(body.toString());
    return new Blob([body])._bytes;
  }
  class Body {
    constructor(body) {
      Object.defineProperty(this, "_body", { value: body, enumerable: false });
      this.bodyUsed = false;
    }
    async arrayBuffer() {
      this.bodyUsed = true;
      return (await bodyBytes(this._body)).slice().buffer;
    }
    async bytes() {
      this.bodyUsed = true;
      return (await bodyBytes(this._body)).slice();
    }
    async text() {
      this.bodyUsed = true;
      return new TextDecoder().decode(await bodyBytes(this._body));
    }
    async json() {
      return JSON.parse(await this.text());
    }
    async blob() {
      return new Blob([await bodyBytes(this._body)]);
    }
    get body() {
      if (this._body === undefined || this._body === null) return null;
      if (this._body instanceof ReadableStream) return this._body;
      const body = this._body;
      return new ReadableStream({
        async start(c) {
          c.enqueue(await bodyBytes(body));
          c.close();
        },
      });
    }
  }
  class Response extends Body {
    constructor(body, init) {
      super(body);
      this.status = init && init.status !== undefined ? init.status : 200;
      this.statusText = (init && init.statusText) || "";
      this.headers = new Headers(init && init.headers);
      this.ok = this.status >= 200 && this.status < 300;
      this.type = "default";
      this.url = "";
      this.redirected = false;
    }
    clone() {
      return new Response(this._body, this);
    }
    static json(data, init) {
      const headers = new Headers(init && init.headers);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
      return new Response(JSON.stringify(data), { ...(init || {}), headers });
    }
    static error() {
      const r = new Response(null, { status: 0 });
      r.type = "error";
      return r;
    }
  }
  class Request extends Body {
    constructor(input, init) {
      super(init && init.body);
      this.url = input instanceof Request ? input.url : String(input);
      this.method = ((init && init.method) || (input instanceof Request ? input.method : "GET")).toUpperCase();
      this.headers = new Headers((init && init.headers) || (input instanceof Request ? input.headers : undefined));
      this.signal = (init && init.signal) || null;
    }
    clone() {
      return new Request(this, { body: this._body });
    }
  }
  define("Response", Response);
  define("Request", Request);
  define("fetch", async (input) => {
    const url = input instanceof Request ? input.url : String(input);
    throw new TypeError(`fetch ${NO_NETWORK} (${url})`);
  });

  // ------------------------------------------------------------ what is not there
  for (const name of ["WebSocket", "MessageChannel", "BroadcastChannel"]) {
    define(
      name,
      class {
        constructor() {
          throw new Error(`${name} ${NO_NETWORK}`);
        }
      },
    );
  }
  define("navigator", {
    userAgent: `pi/${config.version}`,
    language: "en-US",
    languages: ["en-US"],
    platform: "linux",
    hardwareConcurrency: 1,
    onLine: true,
  });
});
