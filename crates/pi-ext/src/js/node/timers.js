// node:timers: the global timers.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-timers";
export const setTimeout = globalThis.setTimeout, clearTimeout = globalThis.clearTimeout;
export const setInterval = globalThis.setInterval, clearInterval = globalThis.clearInterval;
export const setImmediate = globalThis.setImmediate, clearImmediate = globalThis.clearImmediate;
export default filled({ setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate }, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-timers.js).
export * from "pi:surface/node-timers";
