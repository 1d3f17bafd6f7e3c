#!/usr/bin/env bash
# Client CPU per elicitation, side by side: elicitty, a bare go-sdk client (bench/gosdkclient:
# go-sdk alone, the floor under elicitty) and the official TypeScript SDK client
# (bench/ts-client), each calling the demo server's elicit_n and accepting every form,
# over stdio and over Streamable HTTP on 127.0.0.1, protocol 2025-11-25.
#
# CPU is the client process's own user + system time (bench/clientcpu: /proc/PID/stat of
# the ended process, so a stdio server it started is not counted; 10 ms ticks). Per
# elicitation = (median CPU of n=FORMS − median CPU of n=1) / (FORMS − 1), so start-up
# cancels out; the ticks make it exact to 10 ms / (FORMS − 1) (25 µs at 400 forms, 10 µs
# at 1000, the demo's most), and a whole run of under one tick reads "< 10 ms". Peak RSS
# is the client's VmHWM during the n=FORMS run, median. Runs of the three clients
# alternate, so drift in load hits them alike.
#
# Usage: bench/cpu.sh [RUNS [FORMS]]   (defaults: 5 runs, 400 forms)
# Environment and prerequisites: as bench/compare.sh (Linux, bash 5, Go, Node >= 18, npm).
set -euo pipefail
cd "$(dirname "$0")/.."
me=cpu.sh
. bench/lib.sh
root=$PWD
runs=${1:-5}
forms=${2:-400}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer"
[[ $forms =~ ^[0-9]+$ ]] && ((forms >= 2)) || die "FORMS must be an integer >= 2"
protocol=2025-11-25

mkdir -p bin
go build -o bin/elicitty . && go build -o bin/ ./bench/gosdkclient ./bench/clientcpu || die "go build failed"
elicitty=$root/bin/elicitty

install_ts_client # as bench/compare.sh installs it (same cache)
make_tmp
start_demo_http "$elicitty"

# one CLIENT N TRANSPORT: one measured run, "cpu_us rss_kib" appended to its file.
one() {
  local client=$1 n=$2 tr=$3 out
  local -a target argv
  if [[ $tr == stdio ]]; then target=(-- "$elicitty" serve-demo); else target=("$url"); fi
  case $client in
  elicitty)
    if [[ $tr == stdio ]]; then
      argv=("$elicitty" call --protocol "$protocol" --answers "$tmp/answers.yaml" elicit_n "n=$n" "${target[@]}")
    else
      argv=("$elicitty" call --protocol "$protocol" --answers "$tmp/answers.yaml" "${target[@]}" elicit_n "n=$n")
    fi
    ;;
  gosdk) argv=("$root/bin/gosdkclient" elicit "$n" "${target[@]}") ;;
  ts) argv=(node "$cache/client.mjs" elicit "$n" "${target[@]}") ;;
  esac
  out=$("$root/bin/clientcpu" "$tmp/$client-$n-$tr" "${argv[@]}" 2>"$tmp/err") || die "run failed: ${argv[*]}: $(tail -3 "$tmp/err")"
  [[ $out == "answered $n forms" ]] || die "unexpected result from ${argv[*]}: $out"
}

clients=(elicitty gosdk ts)
for tr in stdio http; do
  printf 'cpu.sh: %s, %d runs of n=1 and n=%d per client...\n' "$tr" "$runs" "$forms" >&2
  for c in "${clients[@]}"; do one "$c" 1 "$tr"; done # warm-up, not counted
  rm -f "$tmp"/*-"$tr"
  for _ in $(seq "$runs"); do
    for c in "${clients[@]}"; do
      one "$c" 1 "$tr"
      one "$c" "$forms" "$tr"
    done
  done
done

median() { # median FILE COLUMN
  awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
printf '\nelicitty %s, go-sdk %s, @modelcontextprotocol/sdk %s on node %s; protocol %s; server: elicitty serve-demo\n' \
  "$("$elicitty" --version | awk '{print $NF}')" "$(go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk)" \
  "$sdk_version" "$(node --version)" "$protocol"
printf '%s, %d CPUs; medians of %d runs; CPU of the client process alone\n\n' "$(uname -sr)" "$(nproc)" "$runs"
printf '| transport | measure | elicitty | bare go-sdk client (floor) | TS SDK client | TS / elicitty | elicitty / go-sdk |\n'
printf '|---|---|---|---|---|---|---|\n'
for tr in stdio http; do
  name=$tr
  [[ $tr == http ]] && name='Streamable HTTP'
  declare -A per rss one
  for c in "${clients[@]}"; do
    a=$(median "$tmp/$c-$forms-$tr" 1)
    b=$(median "$tmp/$c-1-$tr" 1)
    per[$c]=$(awk -v a="$a" -v b="$b" -v n="$forms" 'BEGIN { printf "%.0f", (a - b) / (n - 1) }')
    one[$c]=$(awk -v b="$b" 'BEGIN { if (b > 0) printf "%.0f ms", b / 1000; else printf "< 10 ms" }')
    rss[$c]=$(awk -v k="$(median "$tmp/$c-$forms-$tr" 2)" 'BEGIN { printf "%.1f", k / 1024 }')
  done
  # r A B: B / A, or "–" when either is not a positive number (a run under one tick).
  r() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && a > 0) printf "%.1f×", b / a; else printf "–" }'; }
  printf '| %s | client CPU per elicitation | %s µs | %s µs | %s µs | %s | %s |\n' "$name" \
    "${per[elicitty]}" "${per[gosdk]}" "${per[ts]}" "$(r "${per[elicitty]}" "${per[ts]}")" "$(r "${per[gosdk]}" "${per[elicitty]}")"
  printf '| %s | client CPU of a whole n=1 run (start-up, connect, 1 form, close) | %s | %s | %s | %s | %s |\n' "$name" \
    "${one[elicitty]}" "${one[gosdk]}" "${one[ts]}" "$(r "${one[elicitty]% ms}" "${one[ts]% ms}")" "$(r "${one[gosdk]% ms}" "${one[elicitty]% ms}")"
  printf '| %s | peak RSS of the client, n=%d | %s MiB | %s MiB | %s MiB | %s | %s |\n' "$name" "$forms" \
    "${rss[elicitty]}" "${rss[gosdk]}" "${rss[ts]}" "$(r "${rss[elicitty]}" "${rss[ts]}")" "$(r "${rss[gosdk]}" "${rss[elicitty]}")"
done
