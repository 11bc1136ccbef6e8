#!/usr/bin/env bash
# Converts every top-level spec of @withfig/autocomplete 2.692.3 (../shared/corpus/fig) with the
# release `atip`, timed, and checks each output with `atip check` (strict).
#
#   scripts/fig-import.sh [JOBS]
#
# The package is unpacked into a temporary directory that is removed at the end; nothing of it
# is written into the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
tgz=../shared/corpus/fig/withfig-autocomplete-2.692.3.tgz
[ -f "$tgz" ] || { echo "missing $tgz (needs ../shared)" >&2; exit 1; }
jobs=${1:-$(nproc)}
cargo build --release -q -p atip-cli
target=${CARGO_TARGET_DIR:-target}
atip="$target/release/atip"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xzf "$tgz" -C "$tmp"
start=$(date +%s.%N)
status=0
"$atip" import fig --all "$tmp/package" --out "$tmp/out" --jobs "$jobs" > "$tmp/summary.txt" || status=$?
end=$(date +%s.%N)
cat "$tmp/summary.txt"
echo "wall time of atip import fig --all: $(echo "$end - $start" | bc) s ($jobs jobs, $(nproc) cores)"
# Exit 1 from the import means some specs failed (listed above); anything else is an error.
[ "$status" -le 1 ] || exit "$status"
mapfile -t files < <(find "$tmp/out" -name '*.json' | sort)
echo "atip check (strict) on ${#files[@]} files:"
"$atip" check --summary "${files[@]}" > "$tmp/check.txt" 2>&1 || { grep -v ': ok' "$tmp/check.txt"; exit 1; }
echo "all ${#files[@]} load strictly"
