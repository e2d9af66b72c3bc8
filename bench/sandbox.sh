#!/usr/bin/env bash
# bench/sandbox.sh: the sandbox's cost per command. One `pi --mode rpc`
# process per configuration runs N `echo` commands (RPC `bash`, the same
# path as a model's call: the command seam, the supervisor, the sandbox);
# the time from sending a command to its response is measured, and the
# median of each mode is compared with mode off.
#
#   bench/sandbox.sh [N]      (default 200)
#
# Configurations: off; read-only and workspace-write with bubblewrap in a
# session sandbox (made once per pi, the default) and with a sandbox per
# command (PI_SANDBOX_SESSION=off, as before sessions); the same with
# Landlock alone (PI_SANDBOX_BWRAP= switches bubblewrap off). The
# configurations take turns in ROUNDS rounds (default 4) so a change in the
# machine's load hits them alike. Builds the release binary.
# Target: at most 5 ms a command over off.
set -euo pipefail

N=${1:-200}
ROUNDS=${ROUNDS:-4}
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

/usr/bin/python3 - "$PI" "$WORK" "$N" "$ROUNDS" << 'PY'
import json, os, statistics, subprocess, sys, time

pi, work, n, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def run(label, extra, env_extra, n):
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
    p.stdin.close()  # pi ends and its session sandbox with it
    p.wait()
    return times

per_command = {"PI_SANDBOX_SESSION": "off"}
configs = [
    ("off", [], {}),
    ("read-only (bubblewrap, session)", ["--sandbox", "read-only"], {}),
    ("read-only (bubblewrap, per command)", ["--sandbox", "read-only"], per_command),
    ("workspace-write (bubblewrap, session)", ["--sandbox", "workspace-write"], {}),
    ("workspace-write (bubblewrap, per command)", ["--sandbox", "workspace-write"], per_command),
    ("read-only (Landlock only)", ["--sandbox", "read-only"], {"PI_SANDBOX_BWRAP": ""}),
    ("workspace-write (Landlock only)", ["--sandbox", "workspace-write"], {"PI_SANDBOX_BWRAP": ""}),
]
samples = {label: [] for label, _, _ in configs}
for r in range(rounds):
    for label, extra, env_extra in configs:
        samples[label] += run(label, extra, env_extra, max(1, n // rounds))
base = None
print(f"{n} echo commands per configuration in {rounds} rounds, time from request to response")
for label, _, _ in configs:
    times = sorted(samples[label])
    med, p90 = statistics.median(times), times[int(len(times) * 0.9)]
    base = med if base is None else base
    over = "" if label == "off" else f"  overhead {med - base:+.2f} ms ({med / base:.1f}x)"
    print(f"{label:42s} median {med:7.2f} ms  p90 {p90:7.2f} ms{over}")
print("load average:", open("/proc/loadavg").read().split()[:3])
PY
