#!/usr/bin/env bash
# bench/search.sh: `pi tool grep`/`find` against `rg`/`fd` run with the
# reference's flags, on a large tree (beyond.md B1: within 1.2x). Each row
# compares pi with the current releases the reference runs (rg 15.2, fd 10.5)
# and with Debian's (`rg`, `fdfind` on PATH) when present.
#
# Usage: bench/search.sh [TREE]
#   TREE  folder to search; default: a generated tree shaped like the
#         reference's own node_modules (19.6k files, 2.4k folders, 360 MB,
#         nested node_modules, many .d.ts; bench/gen_node_modules.py), made
#         once in $PI_BENCH_DIR (default $CACHE/node_modules-v1).
# Env: RUNS (default 11; medians), PI (default: a fresh release build),
#      CACHE (default ${XDG_CACHE_HOME:-~/.cache}/pi-bench),
#      RG, FD (current releases; default: installed once into $CACHE/tools
#      with `cargo install --root`), RG_OLD, FD_OLD (default: Debian's rg and
#      fdfind from PATH; set empty to skip), ROWS (only rows whose label
#      contains this text, e.g. ROWS=find).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-11}
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pi-bench}
RG_VERSION=15.2.0
FD_VERSION=10.5.0

if [ -z "${PI:-}" ]; then
  (cd "$here" && cargo build --release -q -p pi-cli)
  PI="${CARGO_TARGET_DIR:-$here/target}/release/pi"
fi

# The current releases, installed once when missing (or of another version).
version_is() { [ -x "$1" ] && "$1" --version 2>/dev/null | head -1 | grep -qE " $2( |$)"; }
if [ -z "${RG:-}" ] || [ -z "${FD:-}" ]; then
  tools=$CACHE/tools
  need=()
  [ -n "${RG:-}" ] || version_is "$tools/bin/rg" "$RG_VERSION" || need+=("ripgrep@$RG_VERSION")
  [ -n "${FD:-}" ] || version_is "$tools/bin/fd" "$FD_VERSION" || need+=("fd-find@$FD_VERSION")
  if [ ${#need[@]} -gt 0 ]; then
    echo "installing ${need[*]} into $tools (once)..." >&2
    cargo install --quiet --locked --root "$tools" "${need[@]}" >&2
  fi
  RG=${RG:-$tools/bin/rg}
  FD=${FD:-$tools/bin/fd}
fi
RG_OLD=${RG_OLD-$(command -v rg || true)}
FD_OLD=${FD_OLD-$(command -v fdfind || true)}
[ "$RG_OLD" != "$RG" ] || RG_OLD=
[ "$FD_OLD" != "$FD" ] || FD_OLD=

TREE=${1:-}
if [ -z "$TREE" ]; then
  TREE=${PI_BENCH_DIR:-$CACHE/node_modules-v1}
  if [ ! -d "$TREE" ]; then
    echo "generating a test tree in $TREE (once)..." >&2
    rm -rf "$TREE.tmp"
    python3 "$here/bench/gen_node_modules.py" "$TREE.tmp"
    mv "$TREE.tmp" "$TREE"
  fi
fi
TREE=$(cd "$TREE" && pwd)

inside_git() { local d=$1; while :; do [ -e "$d/.git" ] && return 0; [ "$d" = / ] && return 1; d=$(dirname "$d"); done; }
INSIDE_GIT=0
if inside_git "$TREE"; then INSIDE_GIT=1; fi

echo "tree: $TREE ($(find "$TREE" -type f | wc -l) files, $(find "$TREE" -type d | wc -l) folders, $(du -sh "$TREE" | cut -f1))"
ROWS=${ROWS:-} PI=$PI TREE=$TREE RUNS=$RUNS RG=$RG FD=$FD RG_OLD=$RG_OLD FD_OLD=$FD_OLD INSIDE_GIT=$INSIDE_GIT \
  python3 "$here/bench/search_rows.py"
