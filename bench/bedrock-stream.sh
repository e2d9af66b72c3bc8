#!/usr/bin/env bash
# bench/bedrock-stream.sh: Bedrock ConverseStream decoding through `pi -p`.
#
#   bench/bedrock-stream.sh [SIZES_MB] [FRAME_BYTES]   (defaults: "10 100 400", 1024)
#
# A local HTTP/2 server (bench/bedrock_server.mjs, Node) answers with SIZE MB
# of event-stream frames of about FRAME_BYTES each (events pi checks, parses
# and drops), then "done". For each size prints pi's wall time, CPU time,
# decoding throughput (MB per CPU second) and peak memory (max RSS): memory
# must not grow with the size (one frame is buffered at a time).
# PROFILE=debug uses target/debug/pi (no release build).
set -euo pipefail

SIZES=${1:-"10 100 400"}
FRAME=${2:-1024}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROFILE=${PROFILE:-release}
if [ "$PROFILE" = release ]; then
  cargo build --release -q -p pi-cli --manifest-path "$ROOT/Cargo.toml"
fi
PI="${CARGO_TARGET_DIR:-$ROOT/target}/$PROFILE/pi"

WORK=$(mktemp -d)
SERVER=
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2> /dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/home/.pi/agent" "$WORK/tmp" "$WORK/work"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$WORK/home/.pi/agent/models.json" << JSON
{"providers": {"bed": {"baseUrl": "http://127.0.0.1:$PORT", "api": "bedrock-converse-stream",
  "models": [{"id": "amazon.nova-pro-v1:0"}]}}}
JSON

printf '%8s %8s %8s %10s %10s\n' "MB" "wall s" "cpu s" "MB/cpu-s" "maxRSS MiB"
for MB in $SIZES; do
  node "$ROOT/bench/bedrock_server.mjs" "$PORT" "$MB" "$FRAME" > "$WORK/server.log" &
  SERVER=$!
  for _ in $(seq 50); do grep -q listening "$WORK/server.log" 2> /dev/null && break; sleep 0.1; done
  (cd "$WORK/work" && env -i PATH="$PATH" HOME="$WORK/home" TMPDIR="$WORK/tmp" \
    AWS_ACCESS_KEY_ID=AKIDEXAMPLE AWS_SECRET_ACCESS_KEY=secret AWS_REGION=us-east-1 \
    /usr/bin/time -v -o "$WORK/time.txt" "$PI" -p --offline --no-session --no-tools \
    --model bed/amazon.nova-pro-v1:0 hi > "$WORK/out.txt" 2> "$WORK/err.txt") || true
  kill "$SERVER" 2> /dev/null || true
  wait "$SERVER" 2> /dev/null || true
  SERVER=
  if [ "$(cat "$WORK/out.txt")" != done ]; then
    echo "pi did not answer 'done':" >&2
    cat "$WORK/out.txt" "$WORK/err.txt" >&2
    exit 1
  fi
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time.txt" |
    awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u + s}' "$WORK/time.txt")
  rss=$(awk -F': ' '/Maximum resident/ {printf "%.1f", $2 / 1024}' "$WORK/time.txt")
  printf '%8s %8s %8s %10.1f %10s\n' "$MB" "$wall" "$cpu" "$(echo "$MB / $cpu" | bc -l)" "$rss"
done
