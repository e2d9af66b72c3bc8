#!/usr/bin/env bash
# bench/search.sh: `pi tool grep`/`find` against `rg`/`fd` run with the
# reference's flags, on a large tree (beyond.md B1: within 1.2x).
#
# Usage: bench/search.sh [TREE]
#   TREE  folder to search; default: a generated tree of about 19k files /
#         350 MB (like a big node_modules), cached in ${PI_BENCH_DIR:-/tmp/pi-bench-search}.
# Env: RUNS (default 7; the median is reported), RG, FD (binaries to compare;
#      default rg and fd/fdfind from PATH), PI (default: a fresh release build).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-7}

find_bin() { for n in "$@"; do command -v "$n" 2>/dev/null && return 0; done; return 1; }
RG=${RG:-$(find_bin rg || true)}
FD=${FD:-$(find_bin fd fdfind || true)}

if [ -z "${PI:-}" ]; then
  (cd "$here" && cargo build --release -q -p pi-cli)
  PI="$here/target/release/pi"
fi

generate() {
  local dir=$1
  echo "generating a test tree in $dir (once)..." >&2
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  python3 - "$dir.tmp" <<'PY'
import os, random, sys
root = sys.argv[1]
rnd = random.Random(42)
words = ("function return const let var value object array string number module exports require "
         "import default class extends constructor this prototype async await promise callback error "
         "undefined null true false options config buffer stream event listener handler index length").split()
def text(n):
    out, size = [], 0
    while size < n:
        line = "  " * rnd.randint(0, 4) + " ".join(rnd.choice(words) for _ in range(rnd.randint(3, 14))) + ";\n"
        out.append(line); size += len(line)
    return "".join(out)
files = 0
for p in range(700):
    pkg = os.path.join(root, f"pkg-{p:03d}")
    for sub in ("", "lib", "dist", "src/util", "test"):
        d = os.path.join(pkg, sub)
        os.makedirs(d, exist_ok=True)
        for f in range(rnd.randint(3, 8)):
            ext = rnd.choice([".js", ".js", ".js", ".ts", ".json", ".md", ".d.ts", ".map"])
            size = int(rnd.lognormvariate(8.6, 1.3))
            with open(os.path.join(d, f"file{f}{ext}"), "w") as fh:
                fh.write(text(min(size, 2_000_000)))
            files += 1
    if p % 10 == 0:
        with open(os.path.join(pkg, ".gitignore"), "w") as fh:
            fh.write("*.map\n")
print(files, file=sys.stderr)
PY
  mv "$dir.tmp" "$dir"
}

TREE=${1:-}
if [ -z "$TREE" ]; then
  TREE=${PI_BENCH_DIR:-/tmp/pi-bench-search}
  [ -d "$TREE" ] || generate "$TREE"
fi
TREE=$(cd "$TREE" && pwd)

inside_git() { local d=$1; while :; do [ -e "$d/.git" ] && return 0; [ "$d" = / ] && return 1; d=$(dirname "$d"); done; }

# "wall cpu": medians in milliseconds over RUNS runs (after one warm-up run) of
# wall time and of CPU time (user + system, all threads; steadier on a busy machine)
medians() {
  "$@" >/dev/null 2>&1 || true
  local walls=() cpus=() t
  for _ in $(seq "$RUNS"); do
    t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null 2>&1; } 2>&1 | tail -1 )
    walls+=($(awk '{printf "%d", $1 * 1000}' <<<"$t"))
    cpus+=($(awk '{printf "%d", ($2 + $3) * 1000}' <<<"$t"))
  done
  local mw mc
  mw=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  mc=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$mw $mc"
}

row() { # label "pi_wall pi_cpu" "other_wall other_cpu"
  awk -v l="$1" -v p="$2" -v o="$3" 'BEGIN {
    split(p, a, " "); split(o, b, " ")
    rw = (b[1] > 0) ? a[1] / b[1] : 0; rc = (b[2] > 0) ? a[2] / b[2] : 0
    printf "%-52s %6d %6d | %6d %6d | %5.2fx %5.2fx\n", l, a[1], a[2], b[1], b[2], rw, rc }'
}

echo "tree: $TREE ($(find "$TREE" -type f | wc -l) files, $(du -sh "$TREE" | cut -f1)); runs: $RUNS, median"
echo "pi: $PI"
printf '%-52s %13s | %13s | %13s\n' "case (ms: wall, cpu)" "pi" "rg/fd" "ratio"

if [ -n "$RG" ]; then
  echo "rg: $RG ($("$RG" --version | head -1))"
  rgref() { (cd "$TREE" && "$RG" --no-config --json --line-number --color=never --hidden "$@"); }
  pig() { "$PI" tool grep "$1" --cwd "$TREE"; }
  row "grep rare pattern (full scan) vs rg" \
    "$(medians pig '{"pattern":"zqxwvyy_nomatch"}')" "$(medians rgref -- zqxwvyy_nomatch .)"
  row "grep rare vs rg --no-require-git (same ignores, B10)" \
    "$(medians pig '{"pattern":"zqxwvyy_nomatch"}')" "$(medians rgref --no-require-git -- zqxwvyy_nomatch .)"
  row "grep -i rare pattern vs rg --ignore-case" \
    "$(medians pig '{"pattern":"ZQXWV_nomatch","ignoreCase":true}')" "$(medians rgref --ignore-case -- ZQXWV_nomatch .)"
  row "grep regex, glob *.ts vs rg --glob" \
    "$(medians pig '{"pattern":"cons[a-z]+ \\w+ zq","glob":"*.ts"}')" "$(medians rgref --glob '*.ts' -- 'cons[a-z]+ \w+ zq' .)"
  row "grep common pattern, limit 100 vs rg (full run)" \
    "$(medians pig '{"pattern":"function"}')" "$(medians rgref -- function .)"
  # The reference kills rg after limit+1 matches; `head` does the same here.
  rgkill() { (cd "$TREE" && "$RG" --no-config --json --line-number --color=never --hidden -- function . | head -n 150); }
  row "grep common pattern, limit 100 vs rg killed early" \
    "$(medians pig '{"pattern":"function"}')" "$(medians rgkill)"
else
  echo "rg not found: grep comparison skipped"
fi

if [ -n "$FD" ]; then
  echo "fd: $FD ($("$FD" --version | head -1))"
  nrg=()
  if ! inside_git "$TREE"; then
    if "$FD" --help 2>/dev/null | grep -q -- --no-require-git; then nrg=(--no-require-git); else
      echo "note: $FD has no --no-require-git; it does not apply .gitignore outside a repository"; fi
  fi
  fdref() { "$FD" --glob --color=never --hidden "${nrg[@]}" --max-results 1001 "$@"; }
  pif() { "$PI" tool find "$1" --cwd "$TREE"; }
  row "find *.json" "$(medians pif '{"pattern":"*.json"}')" "$(medians fdref -- '*.json' "$TREE")"
  row "find * (limit reached)" "$(medians pif '{"pattern":"*"}')" "$(medians fdref -- '*' "$TREE")"
  row "find *.nomatch (full walk)" "$(medians pif '{"pattern":"*.nomatch"}')" "$(medians fdref -- '*.nomatch' "$TREE")"
  esc=$(printf '%s' "$TREE" | sed 's/[][\\*?{}]/\\&/g')
  row "find **/lib/*.ts (path pattern)" "$(medians pif '{"pattern":"**/lib/*.ts"}')" \
    "$(medians fdref --full-path --ignore-case -- "$esc/**/lib/*.ts" "$TREE")"
else
  echo "fd/fdfind not found: find comparison skipped"
fi
