#!/usr/bin/env bash
# bench/extensions.sh: what Pi extensions cost in pi's embedded engine.
#  - start-up: loading five TypeScript extensions (crates/pi-ext/tests/fixtures:
#    permission-gate, protected-paths, typebox-tool, nested, mutate-a) against
#    loading none, median of 15 (target: <= 30 ms more than none);
#  - one tool_call handler round trip through the permission gate (Rust ->
#    engine thread -> handler -> Rust), median of ROUNDS (target <= 0.2 ms).
# Built in release mode (the first build compiles oxc and QuickJS: minutes).
#
# Usage: bench/extensions.sh     Env: ROUNDS (default 2000), PROFILE (release|dev, default release)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-2000}
PROFILE=${PROFILE:-release}
cd "$here"
if [ "$PROFILE" = release ]; then
  cargo run -q --release -p pi-ext --example ext_bench -- "$ROUNDS"
else
  cargo run -q -p pi-ext --example ext_bench -- "$ROUNDS"
fi
