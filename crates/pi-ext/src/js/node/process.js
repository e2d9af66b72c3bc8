// node:process: the global process.
const p = globalThis.process;
export default p;
export const env = p.env, argv = p.argv, platform = p.platform, pid = p.pid, cwd = p.cwd, nextTick = p.nextTick;
export const stdout = p.stdout, stderr = p.stderr, stdin = p.stdin, exit = p.exit, hrtime = p.hrtime, versions = p.versions;
