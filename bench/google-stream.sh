#!/usr/bin/env bash
# bench/google-stream.sh: how fast pi reads a Gemini stream
# (`google-generative-ai`, `data: {GenerateContentResponse}` events) and
# whether its memory stays flat. A small server on 127.0.0.1 answers one
# request with a generated stream of SIZE MB, sent in 16 KiB writes:
#   usage  chunks with only usageMetadata (nothing accumulates: the parsing
#          cost alone; peak memory must not grow with SIZE)
#   text   chunks with a 4 KiB text part each (the answer grows to SIZE MB;
#          memory grows with it, since the message holds the text)
# For each kind and size: wall time, CPU time (user+sys), throughput (MB of
# stream per CPU second) and peak RSS (/usr/bin/time -v).
#
# Usage: bench/google-stream.sh
# Env: SIZES (MB, default "16 64"), PI (default: a fresh release build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
SIZES=${SIZES:-"16 64"}
if [ -z "${PI:-}" ]; then
  (cd "$here" && cargo build --release -q -p pi-cli)
  PI="$here/target/release/pi"
fi
work=$(mktemp -d /tmp/pi-bench-google.XXXXXX)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT

# gen KIND MB FILE
gen() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
kind, mb, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
target = mb * 1024 * 1024
with open(path, "w") as f:
    n = 0
    size = 0
    while size < target:
        if kind == "usage":
            c = {"candidates": [{"content": {"parts": [], "role": "model"}, "index": 0}],
                 "usageMetadata": {"promptTokenCount": n, "candidatesTokenCount": n, "totalTokenCount": 2 * n},
                 "modelVersion": "gemini-2.5-flash", "responseId": "r"}
        else:
            c = {"candidates": [{"content": {"parts": [{"text": ("word%d " % n) * (4096 // 8)}], "role": "model"}, "index": 0}],
                 "responseId": "r"}
        line = "data: " + json.dumps(c) + "\r\n\r\n"
        f.write(line)
        size += len(line)
        n += 1
    f.write("data: " + json.dumps({"candidates": [{"content": {"parts": [{"text": "."}], "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}) + "\r\n\r\n")
PY
}

cat > "$work/serve.py" <<'PY'
import http.server, os, sys
path = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        target = open(os.path.join(os.path.dirname(path), "current")).read().strip()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(os.path.getsize(target)))
        self.end_headers()
        with open(target, "rb") as f:
            while True:
                b = f.read(16 * 1024)
                if not b:
                    break
                self.wfile.write(b)
    def log_message(self, *a): pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(path, "w").write(str(srv.server_address[1]))
srv.serve_forever()
PY
python3 "$work/serve.py" x "$work/port" & server=$!
while [ ! -s "$work/port" ]; do sleep 0.1; done
port=$(cat "$work/port")
home="$work/home"; mkdir -p "$home/.pi/agent" "$home/tmp" "$work/proj"
echo "{\"providers\":{\"g\":{\"baseUrl\":\"http://127.0.0.1:$port/v1beta\",\"api\":\"google-generative-ai\",\"apiKey\":\"x\",\"models\":[{\"id\":\"gemini-2.5-flash\"}]}}}" \
  > "$home/.pi/agent/models.json"

printf '%-6s %6s %9s %9s %9s %10s\n' kind MB wall_s cpu_s MB/s peak_MiB
for kind in usage text; do
  for mb in $SIZES; do
    gen "$kind" "$mb" "$work/$kind-$mb.sse"
    echo "$work/$kind-$mb.sse" > "$work/current"
    t0=$(date +%s%N)
    (cd "$work/proj" && HOME=$home TMPDIR=$home/tmp /usr/bin/time -v "$PI" -p --offline --no-session \
      --model g/gemini-2.5-flash hi > /dev/null 2> "$work/time.txt" < /dev/null)
    t1=$(date +%s%N)
    cpu=$(awk -F: '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$work/time.txt")
    peak=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); printf "%.1f", $2 / 1024}' "$work/time.txt")
    bytes=$(stat -c %s "$work/$kind-$mb.sse")
    rate=$(python3 -c "print('%.0f' % ($bytes / 1048576 / max($cpu, 0.01)))")
    printf '%-6s %6s %9s %9s %9s %10s\n' "$kind" "$mb" "$(python3 -c "print('%.2f' % (($t1 - $t0) / 1e9))")" "$cpu" "$rate" "$peak"
    rm -f "$work/$kind-$mb.sse"
  done
done
