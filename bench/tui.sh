#!/usr/bin/env bash
# bench/tui.sh: the terminal UI's figures (bench/tui.py): keystroke-to-screen
# latency with a 100,000-line tool result in the transcript (target: 16 ms
# median), CPU while idle, memory with a 10,000-message session; beside the
# reference's when it is installed (REF_DIR; see docs/side-by-side.md).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
REF_DIR=${REF_DIR:-/work/ref}
(cd "$here" && cargo build --release -q -p pi-cli)
exec python3 "$here/bench/tui.py" "$here/target/release/pi" "$REF_DIR"
