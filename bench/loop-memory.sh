#!/usr/bin/env bash
# bench/loop-memory.sh: does peak memory follow what the session keeps?
# Runs bench/agent-loop.sh at 200 and at 2,000 tool calls (ours, and the
# reference when REF_DIR has it) and prints, for each, the peak's growth
# beside the conversation's own growth (its session file's): the target is
# that what grows beyond the conversation stays within 10% of the 200-call
# peak. Env: as agent-loop.sh (RUNS, REF_DIR, PI, SESSION).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${PI:-}" ]; then
  (cd "$here/.." && cargo build --release -q -p pi-cli)
  export PI="$here/../target/release/pi"
fi
PI=$(realpath "$PI"); export PI
log=$(mktemp /tmp/pi-bench-mem.XXXXXX)
trap 'rm -f "$log"' EXIT
for calls in 200 2000; do
  CALLS=$calls "$here/agent-loop.sh" 2>&1 >/dev/null | sed -n "s/^\(ours\|ref\): .*peak \([0-9]*\) KB, session file \([0-9]*\) bytes/$calls \1 \2 \3/p" >> "$log"
done
python3 - "$log" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    calls, who, peak, conv = line.split()
    rows[(who, int(calls))] = (int(peak) * 1024, int(conv))
mib = lambda b: b / 2**20
for who in ("ours", "ref"):
    if (who, 200) not in rows or (who, 2000) not in rows:
        continue
    (p1, c1), (p2, c2) = rows[(who, 200)], rows[(who, 2000)]
    beyond = (p2 - p1) - (c2 - c1)
    print(f"{who}: peak {mib(p1):.1f} MiB at 200 calls, {mib(p2):.1f} MiB at 2,000; conversation "
          f"{mib(c1):.2f} -> {mib(c2):.2f} MiB; growth beyond it {mib(beyond):.2f} MiB = "
          f"{100 * beyond / p1:.1f}% of the 200-call peak (target <= 10%)")
PY
