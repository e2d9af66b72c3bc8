#!/usr/bin/env bash
# bench/checkpoints.sh: what a checkpoint costs (B11). A scripted mock model
# (scripts/side-by-side/mock.py) makes one turn that writes a file, in a
# project holding a large tree; pi runs it with checkpoints on and off, and
# the difference is the checkpoints' cost (the turn's `before` and `after`
# snapshots). The first run of a project copies its files into the store;
# later runs (new sessions) only look at what changed. Printed per tree:
# first and incremental cost (median), a typical turn's time without
# checkpoints (the ratio target: incremental <= 5% of it and <= 50 ms), and
# the disk the store takes after the first run and per further checkpoint.
#
# The folder is staged while the model answers, so what a turn feels
# depends on the model's latency: LATENCY_MS (default 0, the worst case: a
# model that answers at once) delays each answer of the mock model.
#
# Trees: the reference's node_modules (REF_DIR, ~19k files) and a generated
# one of FILES small files (default 100000).
# Usage: bench/checkpoints.sh   Env: RUNS (default 5), REF_DIR (default ~/.cache/pi-ref), FILES, PI, LATENCY_MS
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
REF_DIR=${REF_DIR:-$HOME/.cache/pi-ref}
FILES=${FILES:-100000}
LATENCY_MS=${LATENCY_MS:-0}
if [ -z "${PI:-}" ]; then
  (cd "$here" && cargo build --release -q -p pi-cli)
  PI="$here/target/release/pi"
fi
PI=$(realpath "$PI")
work=$(mktemp -d /tmp/pi-bench-cp.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "[{\"delayMs\": $LATENCY_MS, \"tools\": [{\"name\": \"write\", \"args\": {\"path\": \"pi-bench-note.txt\", \"content\": \"changed\"}}]}, {\"delayMs\": $LATENCY_MS, \"text\": \"done\"}]" > "$work/turn.json"

# run HOME PROJECT -> wall ms of one `pi -p` turn
run() {
  local h=$1 proj=$2 port=$((20000 + RANDOM % 20000))
  echo "{\"providers\":{\"mock\":{\"baseUrl\":\"http://127.0.0.1:$port/v1\",\"api\":\"openai-completions\",\"apiKey\":\"x\",\"models\":[{\"id\":\"mock-1\"}]}}}" > "$h/.pi/agent/models.json"
  python3 "$here/scripts/side-by-side/mock.py" "$port" "$work/turn.json" "$work/log-$port.jsonl" & local mp=$!
  sleep 0.3
  local t0 t1
  t0=$(date +%s%N)
  (cd "$proj" && HOME=$h TMPDIR=$h/tmp "$PI" -p --offline --model mock/mock-1 "go" > /dev/null 2>&1 < /dev/null)
  t1=$(date +%s%N)
  kill $mp 2>/dev/null; wait $mp 2>/dev/null || true
  echo $(( (t1 - t0) / 1000000 ))
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

measure() {
  local name=$1 proj=$2 files
  files=$(find "$proj" -type f | wc -l)
  local on="$work/home-on" off="$work/home-off"
  rm -rf "$on" "$off"; mkdir -p "$on/.pi/agent" "$on/tmp" "$off/.pi/agent" "$off/tmp"
  echo '{"checkpoints": {"enabled": false}}' > "$off/.pi/agent/settings.json"
  local first base=() inc=()
  first=$(run "$on" "$proj")
  local store_first
  store_first=$(du -sk "$on/.pi/agent/checkpoints" | cut -f1)
  for _ in $(seq "$RUNS"); do
    inc+=("$(run "$on" "$proj")"); base+=("$(run "$off" "$proj")")
  done
  local store_after
  store_after=$(du -sk "$on/.pi/agent/checkpoints" | cut -f1)
  local B I
  B=$(printf '%s\n' "${base[@]}" | median); I=$(printf '%s\n' "${inc[@]}" | median)
  LATENCY_MS=$LATENCY_MS python3 - "$name" "$files" "$first" "$B" "$I" "$store_first" "$store_after" "$RUNS" <<'PY'
import os, sys
LAT = os.environ.get("LATENCY_MS", "0")
name, files, first, base, inc, s1, s2, runs = sys.argv[1], int(sys.argv[2]), *map(int, sys.argv[3:])
cost = max(0, inc - base)
print(f"{name} ({files} files, model latency {LAT} ms): turn without checkpoints {base} ms; first checkpointed turn +{max(0, first - base)} ms; "
      f"incremental +{cost} ms per turn ({100 * cost / max(base, 1):.1f}% of the turn; target <= 50 ms and <= 5%); "
      f"store {s1 / 1024:.1f} MiB after the first, +{(s2 - s1) / max(runs, 1):.0f} KiB per later turn")
PY
}

if [ -d "$REF_DIR/node_modules" ]; then
  mkdir -p "$work/nm" && cp -r "$REF_DIR/node_modules" "$work/nm/node_modules"
  measure "node_modules" "$work/nm"
fi
mkdir -p "$work/big"
python3 - "$work/big" "$FILES" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, f"d{i // 1000:03d}", f"e{(i // 50) % 20:02d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i}.txt"), "w") as f:
        f.write(f"file {i}\n" * 4)
PY
measure "generated" "$work/big"
