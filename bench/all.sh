#!/usr/bin/env bash
# Runs the whole benchmark suite once, in a fixed order, and prints one report: the
# machine and its load, then each measurement's own output. The README's benchmark
# tables come from one such run, so their rows can be compared with each other.
#
#   1. the in-process Go benchmarks behind the README's first table (go test -bench);
#   2. bench/coldstart.sh (cold start of `elicitty tools` over stdio);
#   3. bench/compare.sh (side by side with the TypeScript SDK client: start, elicit_n, RSS);
#   4. bench/cpu.sh (client CPU per elicitation: elicitty, bare go-sdk, TypeScript SDK);
#   5. bench/keylat.sh (a real terminal: time to content, key latency, peak RSS at scale);
#   6. bench/proxy.sh (`elicitty proxy` beside a direct connection and mcp-remote).
#
# Usage: bench/all.sh [QUICK]   (QUICK=1: fewer runs of each, to check the suite works)
# Prerequisites: those of the scripts it runs (Linux, bash 5, Go, tmux, Node >= 18, npm).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${1:-0}
if ((quick)); then
  cold=3 cmp=2 cpu=1 cpun=20 keys=2 benchtime=1x prx=1 prxn=100
else
  cold=30 cmp=20 cpu=5 cpun=1000 keys=60 benchtime=1s prx=5 prxn=2000
fi

section() { printf '\n## %s\n\n' "$*"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

printf '# elicitty benchmarks, one run\n\n'
printf -- '- started: %s\n- machine: %s, %d CPUs, %s\n- go: %s\n- load average at start: %s\n' \
  "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(uname -sr)" "$(nproc)" \
  "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" "$(go env GOVERSION)" "$(loadavg)"

section "Go benchmarks (go test -bench, benchtime $benchtime)"
go test -run '^$' -benchmem -benchtime "$benchtime" \
  -bench 'Parse50$|Check50$|Parse100kProperties$|ParseBigEnum$' ./elicit | grep '^Benchmark'
go test -run '^$' -benchmem -benchtime "$benchtime" -bench 'Build50$|View50$|BigEnumFirstFrame$|BigEnumKey$' ./tui/form | grep '^Benchmark'
go test -run '^$' -benchmem -benchtime "$benchtime" -bench . ./tui | grep '^Benchmark'
go test -run '^$' -benchmem -benchtime "$benchtime" -bench 'Lint5MB$' ./elicit/desc | grep '^Benchmark'
go test -run '^$' -benchmem -benchtime "$benchtime" -bench 'ElicitN' ./demo | grep '^Benchmark'
go test -run '^$' -benchmem -benchtime "$benchtime" -bench 'ElicitRoundTrip|ListTools10k|ElicitBigEnum' ./transport | grep '^Benchmark'
go test -run '^$' -benchmem -benchtime "$benchtime" -bench 'RoundTrip' ./proxy | grep '^Benchmark'
go test -count=1 -v -run 'TestLogMemoryBounded' ./transport/wire | grep -E 'heap|ok|PASS|FAIL' || true

section "Cold start (bench/coldstart.sh $cold), load $(loadavg)"
bash bench/coldstart.sh "$cold"

section "Side by side with the TypeScript SDK client (bench/compare.sh $cmp), load $(loadavg)"
bash bench/compare.sh "$cmp"

section "Client CPU per elicitation (bench/cpu.sh $cpu $cpun), load $(loadavg)"
bash bench/cpu.sh "$cpu" "$cpun"

section "In a real terminal (bench/keylat.sh $keys), load $(loadavg)"
bash bench/keylat.sh "$keys"

section "The proxy beside a direct connection and its peers (bench/proxy.sh $prx $prxn), load $(loadavg)"
bash bench/proxy.sh "$prx" "$prxn"

printf '\n- ended: %s, load average %s\n' "$(date -u '+%H:%M UTC')" "$(loadavg)"
