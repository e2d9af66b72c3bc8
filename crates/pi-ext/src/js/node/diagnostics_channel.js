// node:diagnostics_channel: named channels with subscribers, and tracing
// channels that run the traced function and publish around it.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-diagnostics_channel";

const channels = new Map();

export class Channel {
  constructor(name) {
    this.name = name;
    this._subscribers = [];
  }
  get hasSubscribers() {
    return this._subscribers.length > 0;
  }
  subscribe(fn) {
    this._subscribers.push(fn);
  }
  unsubscribe(fn) {
    const i = this._subscribers.indexOf(fn);
    if (i >= 0) this._subscribers.splice(i, 1);
    return i >= 0;
  }
  publish(message) {
    for (const fn of [...this._subscribers]) {
      try {
        fn(message, this.name);
      } catch (e) {
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
  bindStore() {}
  unbindStore() {
    return false;
  }
  runStores(data, fn, thisArg, ...args) {
    this.publish(data);
    return fn.apply(thisArg, args);
  }
}

export function channel(name) {
  let c = channels.get(name);
  if (!c) channels.set(name, (c = new Channel(name)));
  return c;
}
export const subscribe = (name, fn) => channel(name).subscribe(fn);
export const unsubscribe = (name, fn) => channel(name).unsubscribe(fn);
export const hasSubscribers = (name) => channels.has(name) && channels.get(name).hasSubscribers;

export function tracingChannel(name) {
  const of = (event) => (typeof name === "string" ? channel(`tracing:${name}:${event}`) : name[event]);
  const t = {
    start: of("start"), end: of("end"), asyncStart: of("asyncStart"), asyncEnd: of("asyncEnd"), error: of("error"),
    get hasSubscribers() {
      return [t.start, t.end, t.asyncStart, t.asyncEnd, t.error].some((c) => c.hasSubscribers);
    },
    subscribe(handlers) {
      for (const [k, fn] of Object.entries(handlers || {})) if (t[k] instanceof Channel) t[k].subscribe(fn);
    },
    unsubscribe(handlers) {
      let all = true;
      for (const [k, fn] of Object.entries(handlers || {})) if (t[k] instanceof Channel) all = t[k].unsubscribe(fn) && all;
      return all;
    },
    traceSync(fn, context = {}, thisArg, ...args) {
      t.start.publish(context);
      try {
        const result = fn.apply(thisArg, args);
        context.result = result;
        return result;
      } catch (error) {
        context.error = error;
        t.error.publish(context);
        throw error;
      } finally {
        t.end.publish(context);
      }
    },
    tracePromise(fn, context = {}, thisArg, ...args) {
      t.start.publish(context);
      return Promise.resolve()
        .then(() => fn.apply(thisArg, args))
        .then(
          (result) => {
            context.result = result;
            t.asyncEnd.publish(context);
            return result;
          },
          (error) => {
            context.error = error;
            t.error.publish(context);
            throw error;
          },
        );
    },
    traceCallback(fn, position = -1, context = {}, thisArg, ...args) {
      return t.traceSync(fn, context, thisArg, ...args);
    },
  };
  return t;
}

export default filled({ channel, subscribe, unsubscribe, hasSubscribers, tracingChannel, Channel }, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-diagnostics_channel.js).
export * from "pi:surface/node-diagnostics_channel";
