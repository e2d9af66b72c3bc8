#!/usr/bin/env bash
# bench/bash-output.sh: 1 GB of command output through `pi tool bash`, side by
# side with plain bash writing the same bytes to a file.
#
#   bench/bash-output.sh [BYTES] [RUNS] [SANDBOX]   (defaults: 1000000000, 3, off)
#
# SANDBOX runs pi's command in that sandbox mode (`--sandbox read-only` or
# `workspace-write`, docs/sandbox.md); plain bash always runs unsandboxed.
#
# Prints, per run and as the best of RUNS, the wall time and peak memory
# (max RSS) of both, the wall-time ratio, and checks that pi's full-output file
# holds every byte. Targets: pi peak <= 16 MiB, pi wall <= 1.3x plain bash.
# Builds the release binary first. Uses /usr/bin/time -v when installed, else
# samples VmHWM from /proc.
set -euo pipefail

BYTES=${1:-1000000000}
RUNS=${2:-3}
SANDBOX=${3:-off}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CMD="yes 0123456789abcdef | head -c $BYTES"

cargo build --release -q -p pi-cli --manifest-path "$ROOT/Cargo.toml"
PI="${CARGO_TARGET_DIR:-$ROOT/target}/release/pi"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"

# measure OUTFILE COMMAND...: runs COMMAND, prints "<wall s> <max RSS KiB> <cpu s>"
# (cpu = user + system time of the command and the children it waited for).
measure() {
  local out=$1
  shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v -o "$WORK/time.txt" "$@" > "$out" 2> /dev/null
    local wall rss cpu
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time.txt" |
      awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
    cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$WORK/time.txt")
    echo "$wall $rss $cpu"
  else
    local start end peak=0 pid hwm
    start=$(date +%s.%N)
    "$@" > "$out" 2> /dev/null &
    pid=$!
    while kill -0 "$pid" 2> /dev/null; do
      hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2> /dev/null || echo 0)
      [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
      sleep 0.01
    done
    wait "$pid" || true
    end=$(date +%s.%N)
    echo "$(echo "$end - $start" | bc) $peak 0"
  fi
}

best_pi_wall=999999 best_bash_wall=999999 best_pi_cpu=999999 best_bash_cpu=999999
worst_pi_rss=0 worst_bash_rss=0
for run in $(seq "$RUNS"); do
  rm -f "$TMPDIR"/pi-bash-*.log "$WORK/plain.out"
  read -r bw brss bcpu < <(measure /dev/null bash -c "$CMD > '$WORK/plain.out'")
  plain_bytes=$(stat -c %s "$WORK/plain.out")
  read -r pw prss pcpu < <(measure "$WORK/pi.json" "$PI" tool bash "{\"command\": \"$CMD\"}" --cwd "$WORK" --sandbox "$SANDBOX")
  file=$(ls "$TMPDIR"/pi-bash-*.log)
  pi_bytes=$(stat -c %s "$file")
  printf 'run %d: plain bash %6.2fs (cpu %5.2fs) %6d KiB | pi tool bash %6.2fs (cpu %5.2fs) %6d KiB | wall ratio %.2f | file %d bytes\n' \
    "$run" "$bw" "$bcpu" "$brss" "$pw" "$pcpu" "$prss" "$(echo "$pw / $bw" | bc -l)" "$pi_bytes"
  if [ "$pi_bytes" != "$BYTES" ] || [ "$plain_bytes" != "$BYTES" ]; then
    echo "FAIL: the output file does not hold all $BYTES bytes" >&2
    exit 1
  fi
  best_pi_wall=$(echo "if ($pw < $best_pi_wall) $pw else $best_pi_wall" | bc -l)
  best_bash_wall=$(echo "if ($bw < $best_bash_wall) $bw else $best_bash_wall" | bc -l)
  best_pi_cpu=$(echo "if ($pcpu < $best_pi_cpu) $pcpu else $best_pi_cpu" | bc -l)
  best_bash_cpu=$(echo "if ($bcpu < $best_bash_cpu) $bcpu else $best_bash_cpu" | bc -l)
  [ "$prss" -gt "$worst_pi_rss" ] && worst_pi_rss=$prss
  [ "$brss" -gt "$worst_bash_rss" ] && worst_bash_rss=$brss
done

ratio=$(echo "$best_pi_wall / $best_bash_wall" | bc -l)
printf '\nbest of %d: plain bash %.2fs, pi tool bash (sandbox %s) %.2fs, ratio %.2f (target <= 1.30)\n' \
  "$RUNS" "$best_bash_wall" "$SANDBOX" "$best_pi_wall" "$ratio"
[ -x /usr/bin/time ] && printf 'cpu (user+sys): plain bash %.2fs, pi tool bash %.2fs, ratio %.2f\n' \
  "$best_bash_cpu" "$best_pi_cpu" "$(echo "$best_pi_cpu / $best_bash_cpu" | bc -l)"
printf 'load average during the run: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'peak memory: pi %d KiB = %.1f MiB (target <= 16 MiB), plain bash %d KiB\n' \
  "$worst_pi_rss" "$(echo "$worst_pi_rss / 1024" | bc -l)" "$worst_bash_rss"
printf 'output file holds all %d bytes: yes\n' "$BYTES"
