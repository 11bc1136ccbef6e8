#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60), seeded from the project's own fixtures.
# A crash, panic, leak, timeout (> 10 s per input) or out-of-memory (> 2 GB) fails the run and
# leaves the input in fuzz/artifacts/TARGET/; turn it into a regression test.
#
#   bash fuzz/run.sh [SECONDS] [TARGET...]
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`); runs on stable with RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(load generate responses dispatch argv filter)
fi
export RUSTC_BOOTSTRAP=1

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

for t in "${targets[@]}"; do
    echo "== fuzz $t for ${seconds}s"
    cargo fuzz run "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
done
