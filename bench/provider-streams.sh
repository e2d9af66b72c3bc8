#!/usr/bin/env bash
# bench/provider-streams.sh: how fast `pi -p` reads a model's stream, per
# wire API, and whether its memory stays flat as the stream grows. A small
# server on 127.0.0.1 answers every request with one pre-written stream of
# SIZES megabytes: text in DELTA-byte deltas (so the stream is mostly event
# framing and JSON, and the answer itself stays small), ending as the API
# ends a turn. For each API and size we print the stream's size, the CPU
# time of `pi` (user + system), the throughput (stream MB per CPU second) and
# the peak resident memory (/usr/bin/time -v). Flat memory: the peak does
# not grow with the stream.
#
# Usage: bench/provider-streams.sh
# Env: APIS (default "mistral-conversations azure-openai-responses"),
#      SIZES (MB, default "8 32"), DELTA (bytes, default 4),
#      PROFILE (the build measured: release or debug, default release)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
APIS=${APIS:-"mistral-conversations azure-openai-responses"}
SIZES=${SIZES:-"8 32"}
DELTA=${DELTA:-4}
PROFILE=${PROFILE:-release}
if [ "$PROFILE" = release ]; then
  (cd "$here" && cargo build --release -q -p pi-cli)
else
  (cd "$here" && cargo build -q -p pi-cli)
fi
PI="$here/target/$PROFILE/pi"
work=$(mktemp -d /tmp/pi-bench-streams.XXXXXX)
trap 'rm -rf "$work"' EXIT

# write_stream API MB FILE: a stream of about MB megabytes in DELTA-byte text deltas.
write_stream() {
  python3 - "$1" "$2" "$DELTA" "$3" <<'PY'
import json, sys
api, mb, delta, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
target = mb * 1024 * 1024
piece = ("abcdefghij" * (delta // 10 + 1))[:delta]
with open(path, "w") as f:
    size = 0
    if api == "mistral-conversations":
        ev = "data: " + json.dumps({"id": "cmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "m",
                                    "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}) + "\n\n"
        while size < target:
            f.write(ev); size += len(ev)
        f.write("data: " + json.dumps({"id": "cmpl-1", "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}],
                                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}) + "\n\ndata: [DONE]\n\n")
    else:
        ev = "event: response.output_text.delta\ndata: " + json.dumps(
            {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": piece}) + "\n\n"
        f.write("event: response.created\ndata: " + json.dumps({"type": "response.created", "response": {"id": "r"}}) + "\n\n")
        while size < target:
            f.write(ev); size += len(ev)
        f.write("event: response.completed\ndata: " + json.dumps({"type": "response.completed", "response": {
            "id": "r", "status": "completed", "usage": {"input_tokens": 1, "output_tokens": 1}}}) + "\n\n")
PY
}

# serve PORT FILE: answer every POST with FILE as an event stream, in 64 KiB chunks.
serve() {
  python3 - "$1" "$2" > /dev/null 2>&1 <<'PY' &
import http.server, os, sys
port, path = int(sys.argv[1]), sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(os.path.getsize(path)))
        self.send_header("connection", "close")
        self.end_headers()
        with open(path, "rb") as f:
            while chunk := f.read(65536):
                self.wfile.write(chunk)
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
PY
  echo $!
}

printf '%-24s %8s %9s %9s %10s\n' api "MB" "cpu_s" "MB/s" "peak_MiB"
for api in $APIS; do
  for mb in $SIZES; do
    file="$work/$api-$mb.sse"
    write_stream "$api" "$mb" "$file"
    port=$((20000 + RANDOM % 20000))
    pid=$(serve "$port" "$file")
    sleep 0.3
    h="$work/home-$api-$mb"; mkdir -p "$h/.pi/agent" "$h/tmp" "$h/proj"
    echo "{\"providers\":{\"bench\":{\"baseUrl\":\"http://127.0.0.1:$port\",\"api\":\"$api\",\"apiKey\":\"x\",\"models\":[{\"id\":\"m\"}]}}}" \
      > "$h/.pi/agent/models.json"
    (cd "$h/proj" && env -u AZURE_OPENAI_BASE_URL -u AZURE_OPENAI_RESOURCE_NAME HOME="$h" TMPDIR="$h/tmp" \
      /usr/bin/time -v "$PI" -p --offline --no-session --model bench/m hi > /dev/null 2> "$h/time.txt" < /dev/null) || {
      cat "$h/time.txt"; exit 1; }
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
    python3 - "$h/time.txt" "$(stat -c %s "$file")" "$api" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
get = lambda k: float(re.search(k + r":\s*([\d.]+)", t).group(1))
cpu = get("User time \\(seconds\\)") + get("System time \\(seconds\\)")
mb = int(sys.argv[2]) / 1024 / 1024
peak = get("Maximum resident set size \\(kbytes\\)") / 1024
print(f"{sys.argv[3]:<24} {mb:8.1f} {cpu:9.2f} {mb / max(cpu, 1e-9):9.1f} {peak:10.1f}")
PY
  done
done
