// node:timers/promises: setTimeout and setImmediate as promises (with an abort signal).
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-timers-promises";
function abortError(signal) {
  const e = new Error("The operation was aborted");
  e.name = "AbortError";
  e.code = "ABORT_ERR";
  e.cause = signal && signal.reason;
  return e;
}
export function setTimeout(ms, value, options) {
  const signal = options && options.signal;
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) return reject(abortError(signal));
    const t = globalThis.setTimeout(() => resolve(value), ms);
    if (signal) signal.addEventListener("abort", () => { globalThis.clearTimeout(t); reject(abortError(signal)); }, { once: true });
  });
}
export function setImmediate(value, options) {
  return setTimeout(0, value, options);
}
export const scheduler = { wait: (ms, options) => setTimeout(ms, undefined, options), yield: () => setTimeout(0) };
export default filled({ setTimeout, setImmediate, scheduler }, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-timers-promises.js).
export * from "pi:surface/node-timers-promises";
