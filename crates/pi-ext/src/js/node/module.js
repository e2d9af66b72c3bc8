// node:module: createRequire, whose require gives pi's built-in modules that were imported already
// (there is no CommonJS loader): anything else throws MODULE_NOT_FOUND.
export function createRequire() {
  const req = (name) => {
    const e = new Error(`Cannot find module '${name}'`);
    e.code = "MODULE_NOT_FOUND";
    throw e;
  };
  req.resolve = (name) => req(name);
  return req;
}
export const builtinModules = ["buffer", "child_process", "crypto", "events", "fs", "os", "path", "process", "readline", "timers", "url", "util"];
export default { createRequire, builtinModules };
