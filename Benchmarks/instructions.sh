#!/usr/bin/env bash
# Instructions and heap allocations per operation for the wire-format benchmark cases.
# Counted with valgrind (callgrind for instructions, DHAT for allocations), so the figures are
# repeatable on a busy machine. Each case runs N times and 0 times; the difference divided by N
# is the per-operation cost, free of process start-up.
#   Benchmarks/instructions.sh [CASE…]        (from the repository root)
set -euo pipefail
cd "$(dirname "$0")"
N=${N:-2000}
swift build -c release --product WireInstructionCounts >&2
bin=$(swift build -c release --show-bin-path)/WireInstructionCounts
cases=("$@")
[ ${#cases[@]} -gt 0 ] || mapfile -t cases < <("$bin" --list)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

instructions() { # case iterations
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$bin" "$1" "$2" 2>&1 \
        | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}
blocks() { # case iterations
    valgrind --tool=dhat --dhat-out-file=/dev/null "$bin" "$1" "$2" 2>&1 \
        | sed -n 's/.*Total: .* in \([0-9,]*\) blocks.*/\1/p' | tr -d ,
}

printf "%-28s %16s %14s\n" "case" "instructions/op" "allocations/op"
for c in "${cases[@]}"; do
    n=$N
    case "$c" in *1MB*) n=${N_LARGE:-20} ;; esac
    i0=$(instructions "$c" 0); i1=$(instructions "$c" "$n")
    b0=$(blocks "$c" 0); b1=$(blocks "$c" "$n")
    awk -v c="$c" -v i0="$i0" -v i1="$i1" -v b0="$b0" -v b1="$b1" -v n="$n" \
        'BEGIN { printf "%-28s %16.0f %14.2f\n", c, (i1 - i0) / n, (b1 - b0) / n }'
done
