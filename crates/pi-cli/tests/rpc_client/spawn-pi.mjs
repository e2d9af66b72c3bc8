// The `cliPath` handed to the reference's RpcClient when it drives our `pi`:
// the client runs `node <cliPath> --mode rpc ...`, and this passes those
// arguments and the standard streams straight to the binary named by PI_BIN.
import { spawn } from "node:child_process";

const bin = process.env.PI_BIN;
if (!bin) {
  process.stderr.write("spawn-pi.mjs: PI_BIN is not set\n");
  process.exit(2);
}
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (e) => {
  process.stderr.write(`spawn-pi.mjs: ${e.message}\n`);
  process.exit(2);
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
