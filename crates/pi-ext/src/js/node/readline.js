// node:readline: createInterface over an input that emits data (a read stream), line by line.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-readline";
const { EventEmitter } = globalThis.__pi_node.lib;
export function createInterface(options) {
  const input = options && options.input ? options.input : options;
  const rl = new EventEmitter();
  const lines = [];
  let ended = false;
  let waiting = null;
  let rest = "";
  const push = (line) => {
    rl.emit("line", line);
    if (waiting) {
      const w = waiting;
      waiting = null;
      w({ value: line, done: false });
    } else lines.push(line);
  };
  if (input && typeof input.on === "function") {
    input.on("data", (d) => {
      const parts = (rest + String(d)).split(/\r?\n/);
      rest = parts.pop();
      for (const p of parts) push(p);
    });
    input.on("end", () => {
      if (rest) push(rest);
      ended = true;
      rl.emit("close");
      if (waiting) waiting({ value: undefined, done: true });
    });
  }
  rl.close = () => {
    ended = true;
    rl.emit("close");
  };
  rl.question = (_q, cb) => cb && queueMicrotask(() => cb(""));
  rl.setPrompt = () => undefined;
  rl.prompt = () => undefined;
  rl.write = () => undefined;
  rl[Symbol.asyncIterator] = () => ({
    next: () => (lines.length ? Promise.resolve({ value: lines.shift(), done: false }) : ended ? Promise.resolve({ value: undefined, done: true }) : new Promise((r) => (waiting = r))),
    return: () => Promise.resolve({ value: undefined, done: true }),
  });
  return rl;
}
export default filled({ createInterface }, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-readline.js).
export * from "pi:surface/node-readline";
