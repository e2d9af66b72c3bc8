// node:worker_threads on pi's one engine thread: this is the main thread
// (`isMainThread`, no `parentPort`, no `workerData`), the marking functions
// do nothing, environment data is kept; `new Worker()` throws (a second
// engine is not started).
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-worker_threads";

export const isMainThread = true;
export const parentPort = null;
export const workerData = null;
export const threadId = 0;
export const resourceLimits = {};
export const SHARE_ENV = Symbol.for("nodejs.worker_threads.SHARE_ENV");
export const markAsUncloneable = () => {};
export const markAsUntransferable = () => {};
export const isMarkedAsUntransferable = () => false;
export const receiveMessageOnPort = () => undefined;
const environment = new Map();
export const getEnvironmentData = (key) => environment.get(key);
export const setEnvironmentData = (key, value) => {
  if (value === undefined) environment.delete(key);
  else environment.set(key, value);
};
export class Worker {
  constructor() {
    const e = new Error("Worker from \"node:worker_threads\" is not available in pi's extension engine (see docs/extensions.md, \"Differences\")");
    e.code = "ERR_NOT_SUPPORTED";
    throw e;
  }
}

export default filled(
  {
    isMainThread, parentPort, workerData, threadId, resourceLimits, SHARE_ENV, markAsUncloneable, markAsUntransferable,
    isMarkedAsUntransferable, receiveMessageOnPort, getEnvironmentData, setEnvironmentData, Worker,
  },
  rest,
);

// The rest of what Node exports here: stand-ins (js/surface/node-worker_threads.js).
export * from "pi:surface/node-worker_threads";
