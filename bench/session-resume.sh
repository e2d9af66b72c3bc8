#!/usr/bin/env bash
# bench/session-resume.sh: continue a 10,000-entry session (`--session FILE -p go`)
# with pi and with the reference (REF_DIR; see docs/side-by-side.md): time from
# start to the first model request and peak memory, and the ratios.
# Target: ours at most 1/5 of the reference's time and memory.
# ENTRIES (default 10000) and RUNS (default 3) change the size and repeats.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ENTRIES=${ENTRIES:-10000}
RUNS=${RUNS:-3}
REF_DIR=${REF_DIR:-/work/ref}
PI_BIN=${PI_BIN:-}
if [ -z "$PI_BIN" ]; then
  (cd "$here" && cargo build --release -q -p pi-cli)
  PI_BIN=$here/target/release/pi
fi
# Each side in its own Python process, so peak RSS (RUSAGE_CHILDREN) is its own.
ours=$(SIDE=ours python3 "$here/bench/session_resume.py" "$PI_BIN" "$REF_DIR" "$ENTRIES" "$RUNS")
echo "$ours" | head -1
if [ ! -f "$REF_DIR/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js" ]; then
  echo "reference not installed in $REF_DIR: no ratios"; exit 0
fi
ref=$(SIDE=ref python3 "$here/bench/session_resume.py" "$PI_BIN" "$REF_DIR" "$ENTRIES" "$RUNS")
echo "$ref" | head -1
python3 - "$(echo "$ours" | tail -1)" "$(echo "$ref" | tail -1)" <<'PY'
import json, sys
o, r = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"ratio ours/reference: time {o['t'] / r['t']:.3f}, memory {o['m'] / r['m']:.3f} (target <= 0.2 each)")
PY
