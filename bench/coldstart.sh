#!/usr/bin/env bash
# Measures cold start: the wall time of `elicitty tools -- elicitty serve-demo` (start the
# client, start the demo server over stdio, negotiate, list tools, shut down), N runs,
# and prints the median and the 90th percentile in milliseconds.
# Usage: bench/coldstart.sh [RUNS] [--protocol VERSION]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
shift || true
mkdir -p bin
go build -o bin/elicitty .
./bin/elicitty tools "$@" -- ./bin/elicitty serve-demo >/dev/null # warm the page cache
times=()
for _ in $(seq "$runs"); do
  start=$(date +%s%N)
  ./bin/elicitty tools "$@" -- ./bin/elicitty serve-demo >/dev/null
  end=$(date +%s%N)
  times+=($(((end - start) / 1000)))
done
printf '%s\n' "${times[@]}" | sort -n | awk -v n="$runs" '
  { t[NR] = $1 }
  END {
    med = (n % 2) ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2
    p90 = t[int(n * 0.9 + 0.999)]
    printf "cold start over %d runs: median %.1f ms, p90 %.1f ms\n", n, med / 1000, p90 / 1000
  }'
