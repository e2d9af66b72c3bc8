// node:events: the EventEmitter of pi's Node globals.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-events";
const { EventEmitter } = globalThis.__pi_node.lib;
export { EventEmitter };
export const once = EventEmitter.once;
export const defaultMaxListeners = 10;
export default filled(EventEmitter, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-events.js).
export * from "pi:surface/node-events";
