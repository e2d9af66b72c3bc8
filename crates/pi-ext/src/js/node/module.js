// node:module: createRequire (the engine's CommonJS `require`, resolving from the given file) and the built-in names.
export function createRequire(from) {
  return globalThis.__pi_cjs.createRequire(from);
}
export const builtinModules = ["buffer", "child_process", "crypto", "events", "fs", "module", "os", "path", "process", "readline", "timers", "url", "util", "zlib"];
export default { createRequire, builtinModules };
