// node:os over the host's facts.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-os";
const node = globalThis.__pi_node;
const info = () => JSON.parse(node.os());
export const EOL = "\n";
export const devNull = "/dev/null";
export const homedir = () => process.env.HOME || info().homedir;
export const tmpdir = () => {
  const t = process.env.TMPDIR || process.env.TMP || process.env.TEMP || "/tmp";
  return t.length > 1 ? t.replace(/\/$/, "") : t;
};
export const hostname = () => info().hostname;
export const platform = () => info().platform;
export const type = () => info().type;
export const release = () => info().release;
export const version = () => info().version;
export const machine = () => info().machine;
export const arch = () => info().arch;
export const endianness = () => "LE";
export const uptime = () => info().uptime;
export const totalmem = () => info().totalmem;
export const freemem = () => info().freemem;
export const availableParallelism = () => info().cpus;
export const cpus = () => Array.from({ length: info().cpus }, () => ({ model: "cpu", speed: 0, times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 } }));
export const loadavg = () => [0, 0, 0];
export const networkInterfaces = () => ({});
export const userInfo = () => info().userInfo;
export const constants = { signals: { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15, SIGUSR1: 10, SIGUSR2: 12 }, errno: {} };
export default filled({
  EOL, devNull, homedir, tmpdir, hostname, platform, type, release, version, machine, arch, endianness, uptime,
  totalmem, freemem, availableParallelism, cpus, loadavg, networkInterfaces, userInfo, constants,
}, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-os.js).
export * from "pi:surface/node-os";
