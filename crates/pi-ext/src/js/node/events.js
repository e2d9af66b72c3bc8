// node:events: the EventEmitter of pi's Node globals.
const { EventEmitter } = globalThis.__pi_node.lib;
export { EventEmitter };
export const once = EventEmitter.once;
export const defaultMaxListeners = 10;
export default EventEmitter;
