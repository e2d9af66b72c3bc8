// node:async_hooks: AsyncLocalStorage and AsyncResource over one engine thread
// without async hooks. A store set by `run` is seen by the synchronous part of
// the callback (and what it calls); after an `await` it is not (Node carries it
// across awaits). The rest of Node's names are stand-ins.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-async_hooks";

export class AsyncLocalStorage {
  #active = false;
  #store = undefined;
  getStore() {
    return this.#active ? this.#store : undefined;
  }
  run(store, fn, ...args) {
    const before = [this.#active, this.#store];
    this.#active = true;
    this.#store = store;
    try {
      return fn(...args);
    } finally {
      [this.#active, this.#store] = before;
    }
  }
  exit(fn, ...args) {
    const before = [this.#active, this.#store];
    this.#active = false;
    this.#store = undefined;
    try {
      return fn(...args);
    } finally {
      [this.#active, this.#store] = before;
    }
  }
  enterWith(store) {
    this.#active = true;
    this.#store = store;
  }
  disable() {
    this.#active = false;
    this.#store = undefined;
  }
  static bind(fn) {
    return fn;
  }
  static snapshot() {
    return (fn, ...args) => fn(...args);
  }
}

export class AsyncResource {
  constructor(type) {
    this.type = type;
  }
  runInAsyncScope(fn, thisArg, ...args) {
    return fn.apply(thisArg, args);
  }
  bind(fn) {
    return fn.bind(this);
  }
  emitDestroy() {
    return this;
  }
  asyncId() {
    return 1;
  }
  triggerAsyncId() {
    return 0;
  }
  static bind(fn) {
    return fn;
  }
}

export function createHook() {
  return { enable() { return this; }, disable() { return this; } };
}
export const executionAsyncId = () => 1;
export const triggerAsyncId = () => 0;
export const executionAsyncResource = () => ({});

export default filled({ AsyncLocalStorage, AsyncResource, createHook, executionAsyncId, triggerAsyncId, executionAsyncResource }, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-async_hooks.js).
export * from "pi:surface/node-async_hooks";
