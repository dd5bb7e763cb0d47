#!/usr/bin/env bash
# The full test command: installs the test tools (spirv-val, lavapipe) and runs the whole test suite.
# Runnable from any directory.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

echo "[test] repository root: $ROOT"
bash .ci/setup.sh

if [ -d ../shared/corpus ]; then
    echo "[test] corpus: $(cd ../shared/corpus && pwd)"
else
    echo "[test] NOTE: ../shared/corpus is absent (looked for $ROOT/../shared/corpus); corpus tests will report that they did not run"
fi

echo "[test] cargo test --workspace"
cargo test --workspace
