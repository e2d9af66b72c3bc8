// node:timers: the global timers.
export const setTimeout = globalThis.setTimeout, clearTimeout = globalThis.clearTimeout;
export const setInterval = globalThis.setInterval, clearInterval = globalThis.clearInterval;
export const setImmediate = globalThis.setImmediate, clearImmediate = globalThis.clearImmediate;
export default { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate };
