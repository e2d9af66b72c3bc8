// node:module: createRequire (the engine's CommonJS `require`, resolving from the given file) and the built-in names.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-module";
export function createRequire(from) {
  return globalThis.__pi_cjs.createRequire(from);
}
export const builtinModules = ["buffer", "child_process", "crypto", "events", "fs", "module", "os", "path", "process", "readline", "timers", "url", "util", "zlib"];
export default filled({ createRequire, builtinModules }, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-module.js).
export * from "pi:surface/node-module";
