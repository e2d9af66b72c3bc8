#!/usr/bin/env bash
# bench/sandbox.sh: the sandbox's cost per command. One `pi --mode rpc`
# process per configuration runs N `echo` commands (RPC `bash`, the same
# path as a model's call: the command seam, the supervisor, the sandbox);
# the time from sending a command to its response is measured, and the
# median of each mode is compared with mode off.
#
#   bench/sandbox.sh [N]      (default 200)
#
# Configurations: off; read-only and workspace-write with bubblewrap (the
# helper adds Landlock and seccomp); the same with Landlock alone
# (PI_SANDBOX_BWRAP= switches bubblewrap off). Builds the release binary.
# Target: at most 5 ms a command over off.
set -euo pipefail

N=${1:-200}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release -q -p pi-cli --manifest-path "$ROOT/Cargo.toml"
PI="${CARGO_TARGET_DIR:-$ROOT/target}/release/pi"

WORK=$(mktemp -d /var/tmp/pi-sandbox-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/agent" "$WORK/proj"
# A model that is never asked (RPC bash needs one configured).
cat > "$WORK/agent/models.json" << 'JSON'
{"providers": {"bench": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "none", "models": [{"id": "m"}]}}}
JSON

/usr/bin/python3 - "$PI" "$WORK" "$N" << 'PY'
import json, os, statistics, subprocess, sys, time

pi, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])

def run(label, extra, env_extra):
    env = dict(os.environ, PI_CODING_AGENT_DIR=work + "/agent", **env_extra)
    p = subprocess.Popen([pi, "--mode", "rpc", "--no-session", "--offline", "--model", "bench/m", *extra],
                         cwd=work + "/proj", env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
    times = []
    for i in range(n + 5):
        t0 = time.perf_counter()
        p.stdin.write(json.dumps({"id": str(i), "type": "bash", "command": "echo hi"}) + "\n")
        p.stdin.flush()
        while True:
            rec = json.loads(p.stdout.readline())
            if rec.get("type") == "response" and rec.get("id") == str(i):
                break
        if rec["data"]["output"] != "hi\n":
            sys.exit(f"{label}: unexpected output {rec}")
        if i >= 5:
            times.append((time.perf_counter() - t0) * 1000)
    p.kill()
    p.wait()
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9)]

configs = [
    ("off", [], {}),
    ("read-only (bubblewrap)", ["--sandbox", "read-only"], {}),
    ("workspace-write (bubblewrap)", ["--sandbox", "workspace-write"], {}),
    ("read-only (Landlock only)", ["--sandbox", "read-only"], {"PI_SANDBOX_BWRAP": ""}),
    ("workspace-write (Landlock only)", ["--sandbox", "workspace-write"], {"PI_SANDBOX_BWRAP": ""}),
]
base = None
print(f"{n} echo commands per configuration, time from request to response")
for label, extra, env_extra in configs:
    med, p90 = run(label, extra, env_extra)
    base = med if base is None else base
    over = "" if label == "off" else f"  overhead {med - base:+.2f} ms ({med / base:.1f}x)"
    print(f"{label:34s} median {med:7.2f} ms  p90 {p90:7.2f} ms{over}")
print("load average:", open("/proc/loadavg").read().split()[:3])
PY
