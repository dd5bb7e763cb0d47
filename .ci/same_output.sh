#!/usr/bin/env bash
# Proves that a change leaves the translator's output alone: translates every blob of the DXBC
# corpus with the command-line defaults using two builds, and compares the SPIR-V of each blob
# byte for byte, and the error message of each blob that fails.
#
# Usage: .ci/same_output.sh BASE [CORPUS]
#   BASE    a git revision (built in a temporary worktree under target/) or a dxbc2spv binary
#   CORPUS  default ../shared/corpus
# Prints `same_output: N blobs, M SPIR-V modules identical, K differ` and exits 1 on any difference.
set -euo pipefail
# One collation for sort and comm.
export LC_ALL=C
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BASE="${1:?usage: same_output.sh BASE-REV-or-BINARY [CORPUS]}"
CORPUS="${2:-$ROOT/../shared/corpus}"
[ -d "$CORPUS" ] || { echo "same_output: corpus $CORPUS is absent" >&2; exit 1; }
WORK="$ROOT/target/same_output"
rm -rf "$WORK/base" "$WORK/head"
mkdir -p "$WORK"

if [ -x "$BASE" ] && [ -f "$BASE" ]; then
    BASE_BIN="$BASE"
else
    rev="$(git rev-parse --verify "$BASE^{commit}")"
    tree="$WORK/tree-$rev"
    if [ ! -d "$tree" ]; then
        git worktree add --detach "$tree" "$rev" >/dev/null
    fi
    (cd "$tree" && CARGO_TARGET_DIR="$WORK/target-base" cargo build --release --bin dxbc2spv -q)
    BASE_BIN="$WORK/target-base/release/dxbc2spv"
fi
cargo build --release --bin dxbc2spv -q
HEAD_BIN="$ROOT/target/release/dxbc2spv"

run() { # binary, out dir, log
    "$1" translate --out-dir "$2" "$CORPUS" -j 1 2>"$3" >/dev/null || true
    # One line per failed blob, sorted (the summary lines carry timings and are dropped).
    grep -E '^[^ ]+\.(dxbc|cso): ' "$3" | sort > "$3.errors" || true
}
run "$BASE_BIN" "$WORK/base" "$WORK/base.log"
run "$HEAD_BIN" "$WORK/head" "$WORK/head.log"

(cd "$WORK/base" && find . -type f -name '*.spv' | sort | xargs -r sha256sum) > "$WORK/base.sha"
(cd "$WORK/head" && find . -type f -name '*.spv' | sort | xargs -r sha256sum) > "$WORK/head.sha"
blobs="$(find "$CORPUS" -type f \( -name '*.dxbc' -o -name '*.cso' \) | wc -l)"
same="$(comm -12 <(sort "$WORK/base.sha") <(sort "$WORK/head.sha") | wc -l)"
differ=0
if ! diff -q "$WORK/base.sha" "$WORK/head.sha" >/dev/null; then
    echo "SPIR-V differs (< base, > head):"
    diff "$WORK/base.sha" "$WORK/head.sha" | grep '^[<>]' | head -20 || true
    differ="$(diff "$WORK/base.sha" "$WORK/head.sha" | grep -c '^>' || true)"
fi
if ! diff -q "$WORK/base.log.errors" "$WORK/head.log.errors" >/dev/null; then
    echo "error messages differ (< base, > head):"
    diff "$WORK/base.log.errors" "$WORK/head.log.errors" | head -20 || true
    differ=$((differ + 1))
fi
echo "same_output: $blobs blobs, $same SPIR-V modules identical, $differ differ"
[ "$differ" -eq 0 ]
