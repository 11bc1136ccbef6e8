#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60), seeded from the project's own fixtures.
# A crash, panic, leak, timeout (> 10 s per input) or out-of-memory (> 2 GB) fails the run and
# leaves the input in fuzz/artifacts/TARGET/; turn it into a regression test.
#
#   bash fuzz/run.sh [SECONDS] [TARGET...]
#
# Builds the targets with cargo alone, instrumented for libFuzzer as cargo-fuzz would but
# without a sanitizer (nothing to install, stable Rust): SanitizerCoverage with inline 8-bit
# counters, PC table and comparison tracing, `--cfg fuzzing`, debug assertions and overflow
# checks on. `--target` keeps the instrumentation off build scripts and proc-macros.
# `cargo fuzz run TARGET` works on these targets too (nightly or RUSTC_BOOTSTRAP=1, with ASan).
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(load generate responses dispatch argv filter)
fi

seed() {
    local dir="corpus/$1"
    shift
    mkdir -p "$dir"
    for f in "$@"; do
        cp "$f" "$dir/seed-$(basename "$f")"
    done
}
seed load ../examples/atip/*.json ../tests/fixtures/*.json ../tests/canonical/*.json
seed generate ../examples/atip/*.json ../tests/fixtures/*.json
seed responses ../examples/replay/*.json
mkdir -p corpus/dispatch
printf 'git_commit\n{"message":"Fix","all":true,"author":"Ada <a@b>","chdir":"/tmp"}' > corpus/dispatch/seed-commit
printf 'git_add\n{"paths":["-rf","--",".."]}' > corpus/dispatch/seed-add
printf 'git_log\n{"max_count":"3","oneline":null}' > corpus/dispatch/seed-log
printf 'GIT_COMMIT\n{"__proto__":1,"constructor":{}}' > corpus/dispatch/seed-proto
mkdir -p corpus/argv corpus/filter

triple=$(rustc -vV | sed -n 's/^host: //p')
export CARGO_TARGET_DIR="$PWD/target"
RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks" \
    cargo build --release --target "$triple" $(printf -- '--bin %s ' "${targets[@]}")

for t in "${targets[@]}"; do
    echo "== fuzz $t for ${seconds}s"
    mkdir -p "artifacts/$t"
    "target/$triple/release/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
done
