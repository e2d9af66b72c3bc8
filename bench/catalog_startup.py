#!/usr/bin/env python3
"""Start-up with the built-in catalog: `pi --version` and a one-shot
`pi -p` against a local Chat Completions server, median wall time of RUNS
runs for each binary given (e.g. a build before and after a change).

    python3 bench/catalog_startup.py target/release/pi [other/pi ...]

RUNS (default 50). Each run gets a scratch HOME whose models.json points a
provider at the local server; no provider key is set, so the catalog is
loaded and searched as on a machine without keys.
"""
import http.server, json, os, statistics, subprocess, sys, tempfile, threading, time

RUNS = int(os.environ.get("RUNS", "50"))

SSE = "".join(
    f"data: {json.dumps(c)}\n\n"
    for c in [
        {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}}]},
        {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"id": "c", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
    ]
) + "data: [DONE]\n\n"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", "0")))
        body = SSE.encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def median_ms(cmd, env, cwd):
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    with tempfile.TemporaryDirectory() as scratch:
        home, work, tmp = (os.path.join(scratch, d) for d in ("home", "work", "tmp"))
        for d in (os.path.join(home, ".pi", "agent"), work, tmp):
            os.makedirs(d)
        models = {"providers": {"mock": {"baseUrl": url, "api": "openai-completions", "apiKey": "x", "models": [{"id": "mock-1"}]}}}
        with open(os.path.join(home, ".pi", "agent", "models.json"), "w") as f:
            json.dump(models, f)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TMPDIR": tmp}
        for pi in map(os.path.abspath, sys.argv[1:]):
            version = median_ms([pi, "--version"], env, work)
            one_shot = median_ms([pi, "-p", "--offline", "--no-session", "--model", "mock/mock-1", "hi"], env, work)
            print(f"{pi}: --version {version:.1f} ms, -p {one_shot:.1f} ms (median of {RUNS})")
    server.shutdown()


if __name__ == "__main__":
    main()
