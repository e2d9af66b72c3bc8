#!/usr/bin/env python3
"""Scratch mock OpenAI chat-completions SSE server. Usage: mock.py PORT SCRIPT.json LOG.jsonl
SCRIPT: list of turns; turn = {"text": str} or {"tools": [{"name":..., "args": obj-or-str, "id"?}]};
"stall": true sends the first event, then waits for the client to go away;
"delayMs": N answers after N milliseconds (a model's latency)"""
import json, sys, http.server
port, script_path, log_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
turns = json.load(open(script_path))
state = {"i": 0}
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def setup(self):
        super().setup()
        import socket
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("content-length", 0)); body = self.rfile.read(n)
        with open(log_path, "a") as f: f.write(body.decode() + "\n")
        with open(log_path + ".headers", "a") as f: f.write(json.dumps({k.lower(): v for k, v in self.headers.items()}) + "\n")
        i = state["i"]; state["i"] += 1
        turn = turns[i] if i < len(turns) else {"text": "done"}
        if "status" in turn:
            b = turn.get("body", "").encode()
            self.send_response(turn["status"]); self.send_header("content-type", "application/json"); self.send_header("content-length", str(len(b))); self.end_headers(); self.wfile.write(b); return
        chunks = []
        if "text" in turn:
            chunks.append({"choices": [{"index": 0, "delta": {"role": "assistant", "content": turn["text"]}}]})
            fin = "stop"
        else:
            tcs = []
            for k, t in enumerate(turn["tools"]):
                a = t["args"] if isinstance(t["args"], str) else json.dumps(t["args"])
                tcs.append({"index": k, "id": t.get("id", f"call_{i}_{k}"), "type": "function", "function": {"name": t["name"], "arguments": a}})
            chunks.append({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": tcs}}]})
            fin = "tool_calls"
        fin = turn.get("finish", fin)
        chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": fin}]})
        chunks.append({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
        out = b"".join(b"data: " + json.dumps(dict(id="c", object="chat.completion.chunk", created=0, model="mock-1", **c)).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
        if turn.get("delayMs"):
            import time
            time.sleep(turn["delayMs"] / 1000)
        if turn.get("stall"):
            # The first event, then nothing until the client goes away (an abort).
            import time
            self.send_response(200); self.send_header("content-type", "text/event-stream"); self.end_headers()
            self.wfile.write(b"data: " + json.dumps(dict(id="c", object="chat.completion.chunk", created=0, model="mock-1", **chunks[0])).encode() + b"\n\n"); self.wfile.flush()
            try:
                while True:
                    time.sleep(0.2); self.wfile.write(b": ping\n\n"); self.wfile.flush()
            except OSError:
                return
        self.send_response(200); self.send_header("content-type", "text/event-stream"); self.send_header("content-length", str(len(out))); self.end_headers(); self.wfile.write(out)
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
