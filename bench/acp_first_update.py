#!/usr/bin/env python3
"""Time from `session/prompt` to the first `session/update` of its answer,
and the peak memory of the whole process tree, for an ACP agent command.

Usage: acp_first_update.py RUNS -- AGENT COMMAND...
The agent talks to a mock model (OpenAI Chat Completions SSE, in-process,
on 127.0.0.1) that answers "ok"; HOME points at a scratch folder with a
models.json for it. Prints one JSON line: {"first_ms": median, "peak_kb": median}.
"""
import http.server, json, os, shutil, statistics, subprocess, sys, tempfile, threading, time

runs = int(sys.argv[1])
cmd = sys.argv[sys.argv.index("--") + 1:]

SSE = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in [
    {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "mock-1",
     "choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"}}]},
    {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "mock-1",
     "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
]) + b"data: [DONE]\n\n"

class Mock(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200); self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(SSE))); self.end_headers(); self.wfile.write(SSE)

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Mock)
threading.Thread(target=server.serve_forever, daemon=True).start()

def tree_rss_kb(pid):
    """RSS of pid and its descendants (from /proc)."""
    kids = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                ppid = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(p))
            except OSError:
                pass
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(kids.get(p, []))
        try:
            for line in open(f"/proc/{p}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total

def one():
    root = tempfile.mkdtemp(prefix="pi-bench-acp.")
    home, work = f"{root}/home", f"{root}/work"
    os.makedirs(f"{home}/.pi/agent"); os.makedirs(work)
    json.dump({"providers": {"mock": {"baseUrl": f"http://127.0.0.1:{server.server_address[1]}/v1",
               "api": "openai-completions", "apiKey": "x", "models": [{"id": "mock-1"}]}}},
              open(f"{home}/.pi/agent/models.json", "w"))
    json.dump({"defaultProvider": "mock", "defaultModel": "mock-1", "quietStartup": True}, open(f"{home}/.pi/agent/settings.json", "w"))
    env = dict(os.environ, HOME=home, TMPDIR=f"{root}")
    p = subprocess.Popen(cmd, cwd=work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak = [0]
    stop = threading.Event()
    def watch():
        while not stop.is_set():
            peak[0] = max(peak[0], tree_rss_kb(p.pid)); time.sleep(0.005)
    threading.Thread(target=watch, daemon=True).start()
    def send(m): p.stdin.write(json.dumps(m) + "\n"); p.stdin.flush()
    def until(pred):
        while True:
            line = p.stdout.readline()
            if not line: raise SystemExit(f"{cmd[0]} ended")
            m = json.loads(line)
            if pred(m): return m
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1, "clientCapabilities": {}}})
    until(lambda m: m.get("id") == 1)
    send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": work, "mcpServers": []}})
    sid = until(lambda m: m.get("id") == 2)["result"]["sessionId"]
    time.sleep(0.5)  # let the session's announcements go out
    while True:  # drain what is already there
        import select
        if not select.select([p.stdout], [], [], 0.2)[0]: break
        p.stdout.readline()
    t0 = time.perf_counter()
    send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}})
    until(lambda m: m.get("method") == "session/update" and m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
    first = (time.perf_counter() - t0) * 1000
    until(lambda m: m.get("id") == 3)
    stop.set(); p.stdin.close()
    try: p.wait(timeout=10)
    except subprocess.TimeoutExpired: p.kill()
    shutil.rmtree(root, ignore_errors=True)
    return first, peak[0]

results = [one() for _ in range(runs)]
print(json.dumps({"first_ms": round(statistics.median(r[0] for r in results), 1),
                  "peak_kb": int(statistics.median(r[1] for r in results))}))
