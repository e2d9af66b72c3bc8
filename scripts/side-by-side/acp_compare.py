#!/usr/bin/env python3
"""The same scripted ACP session through two agents, and what the editor saw
in each, compared: `pi --mode acp` (ours, native) and `pi-acp` over the
reference (or over ours). Each prompt's story is reduced to what an editor
shows: the answer's text, the thinking's text, and each tool call's title,
kind, the statuses it went through, its final content (a diff's texts, a
terminal, or text) in order. Differences documented in docs/acp.md (tool
kinds of grep/find/ls, pi-acp's session_info_update metadata, the
permission options) are normalised away; anything else is printed and the
exit status is 1.

Usage: acp_compare.py PI_BIN NODE PI_ACP_JS REF_CLI
  PI_BIN: our pi; NODE: node to run pi-acp and the reference with;
  PI_ACP_JS: pi-acp's dist/index.js; REF_CLI: the reference's dist/bundle/cli.js.
"""
import json, os, shutil, socket, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
pi_bin, node, pi_acp, ref_cli = sys.argv[1:5]

SCRIPT = [
    {"text": "hello there"},
    {"tools": [{"name": "edit", "args": {"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "beta"}]}}]},
    {"text": "edited"},
    {"tools": [{"name": "write", "args": {"path": "new.txt", "content": "fresh\n"}}]},
    {"text": "written"},
    {"tools": [{"name": "bash", "args": {"command": "echo hi"}}]},
    {"text": "ran"},
    {"tools": [{"name": "read", "args": {"path": "a.txt"}}]},
    {"text": "read it"},
    {"tools": [{"name": "read", "args": {"path": "missing.txt"}}]},
    {"text": "not there"},
]
PROMPTS = ["say hello", "edit a.txt", "write new.txt", "run echo", "read a.txt", "read missing.txt"]
KIND_DIFFERENCES = {"grep": "search", "find": "search", "ls": "read"}


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


def run(cmd, env_extra):
    root = tempfile.mkdtemp(prefix="pi-acp-compare.")
    home, work = f"{root}/home", f"{root}/work"
    os.makedirs(f"{home}/.pi/agent"); os.makedirs(work)
    open(f"{work}/a.txt", "w").write("alpha\n")
    port = free_port()
    json.dump({"providers": {"mock": {"baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions",
               "apiKey": "x", "models": [{"id": "mock-1"}]}}}, open(f"{home}/.pi/agent/models.json", "w"))
    json.dump({"defaultProvider": "mock", "defaultModel": "mock-1", "quietStartup": True},
              open(f"{home}/.pi/agent/settings.json", "w"))
    json.dump(SCRIPT, open(f"{root}/script.json", "w"))
    mock = subprocess.Popen([sys.executable, f"{here}/mock.py", str(port), f"{root}/script.json", f"{root}/log.jsonl"])
    # Wait until the mock listens (a loaded machine starts Python slowly: a
    # refused first request would be retried and show in the answer).
    deadline = time.time() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.time() > deadline:
                raise SystemExit("the mock server did not start")
            time.sleep(0.05)
    env = dict(os.environ, HOME=home, TMPDIR=root, **env_extra)
    p = subprocess.Popen(cmd, cwd=work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    seen = []

    def send(m):
        p.stdin.write(json.dumps(m) + "\n"); p.stdin.flush()

    def until(pred):
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit(f"{cmd} ended early; seen {seen[-5:]}")
            m = json.loads(line); seen.append(m)
            if m.get("method") == "session/request_permission":
                send({"jsonrpc": "2.0", "id": m["id"], "result": {"outcome": {"outcome": "cancelled"}}})
            if pred(m):
                return m

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1, "clientCapabilities": {}}})
        until(lambda m: m.get("id") == 1)
        send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": work, "mcpServers": []}})
        sid = until(lambda m: m.get("id") == 2)["result"]["sessionId"]
        stories = []
        for n, text in enumerate(PROMPTS):
            start = len(seen)
            rid = 10 + n
            send({"jsonrpc": "2.0", "id": rid, "method": "session/prompt",
                  "params": {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}})
            answer = until(lambda m: m.get("id") == rid)
            updates = [m["params"]["update"] for m in seen[start:] if m.get("method") == "session/update"]
            stories.append(story(updates, answer.get("result", {}).get("stopReason"), work))
        return stories
    finally:
        p.kill(); mock.kill(); shutil.rmtree(root, ignore_errors=True)


def story(updates, stop, work):
    """What an editor shows for one prompt."""
    out = {"stop": stop, "text": "", "thought": "", "calls": []}
    calls = {}
    for u in updates:
        kind = u["sessionUpdate"]
        if kind == "agent_message_chunk":
            out["text"] += u["content"].get("text", "")
        elif kind == "agent_thought_chunk":
            out["thought"] += u["content"].get("text", "")
        elif kind in ("tool_call", "tool_call_update"):
            c = calls.get(u["toolCallId"])
            if c is None:
                c = calls[u["toolCallId"]] = {"title": None, "kind": None, "statuses": [], "content": None}
                out["calls"].append(c)
            if u.get("title"):
                c["title"] = u["title"]
            if u.get("kind"):
                c["kind"] = KIND_DIFFERENCES.get(c["title"], u["kind"]) if c["title"] in KIND_DIFFERENCES else u["kind"]
            if u.get("status") and (not c["statuses"] or c["statuses"][-1] != u["status"]):
                c["statuses"].append(u["status"])
            if u.get("content"):
                first = u["content"][0]
                if first["type"] == "diff":
                    c["content"] = {"diff": [os.path.basename(first["path"]), first.get("oldText"), first["newText"]]}
                elif first["type"] == "terminal":
                    c["content"] = {"terminal": True}
                else:
                    c["content"] = {"text": (first["content"].get("text") or "").replace(work, "<work>")}
            meta = u.get("_meta") or {}
            if "terminal_exit" in meta:
                c["exit"] = meta["terminal_exit"].get("exit_code")
    return out


ours = run([pi_bin, "--mode", "acp"], {})
wrapper = tempfile.mkdtemp(prefix="pi-acp-ref.")
ref_cmd = f"{wrapper}/pi"
open(ref_cmd, "w").write(f'#!/bin/sh\nexec "{node}" "{ref_cli}" "$@"\n')
os.chmod(ref_cmd, 0o755)
theirs = run([node, pi_acp], {"PI_ACP_PI_COMMAND": ref_cmd})
shutil.rmtree(wrapper, ignore_errors=True)
def settle_write_race(a, b):
    """pi-acp reads a file before an edit or write runs, without waiting for
    the read: when the tool ends first, it shows the tool's text result
    instead of the diff (ours reads earlier, when the model names the call,
    but does not hold the tool back either); such a pair counts as the
    same story."""
    for ca, cb in zip(a["calls"], b["calls"]):
        for x, y in ((ca, cb), (cb, ca)):
            if x["kind"] == y["kind"] == "edit" and "diff" in (x["content"] or {}) \
                    and (y["content"] or {}).get("text", "").startswith("Successfully"):
                y["content"] = x["content"]


same = True
for prompt, a, b in zip(PROMPTS, ours, theirs):
    settle_write_race(a, b)
    if a != b:
        same = False
        print(f"prompt {prompt!r} differs:\n  ours:   {json.dumps(a)}\n  pi-acp: {json.dumps(b)}")
print(json.dumps({"same": same, "prompts": len(PROMPTS)}))
sys.exit(0 if same else 1)
