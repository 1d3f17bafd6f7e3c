#!/usr/bin/env bash
# Side by side: elicitty against a client written with the official TypeScript SDK
# (bench/ts-client, @modelcontextprotocol/sdk pinned in its package.json), both talking
# to the built-in demo server (`elicitty serve-demo`) over stdio and over Streamable HTTP
# on 127.0.0.1, protocol 2025-11-25. Prints one Markdown table:
#
#   1. cold start: a whole client process that connects, initializes, lists the tools and
#      closes (`elicitty tools` / `client.mjs list`), wall time, median and p90;
#   2. `elicit_n` with n=FORMS (50): a whole client process that calls the tool and
#      accepts every form with its schema defaults (elicitty with the answers file
#      `- match: {}` / `action: accept`, the TS client with an elicitation handler that
#      accepts with empty content and the SDK's `applyDefaults` capability), wall time,
#      median and p90; and the time per elicitation, the marginal cost of one more form:
#      (median of n=FORMS - median of n=1) / (FORMS - 1), so process start-up cancels out;
#   3. peak RSS of the client process alone during the elicit_n run (VmHWM in
#      /proc/PID/status, sampled every millisecond until the process exits; the median
#      of 5 runs). Not /usr/bin/time -v: over stdio it would fold the peak of the reaped
#      server child into the client's figure.
#
# Same server binary, same machine, same work for both clients; one warm-up run of each
# measurement is excluded (it also checks the result and the negotiated protocol); the
# runs of the two clients alternate so that drift in load hits both alike. Timed runs and
# RSS runs are separate, so the sampler never competes with a timed run.
#
# Usage: bench/compare.sh [RUNS [FORMS]]      (defaults: 20 runs, 50 forms)
# Environment: ELICITTY=path   use this elicitty binary instead of building bin/elicitty
#              ELICITTY_BENCH_CACHE=dir   where the TS client is installed (default
#              $XDG_CACHE_HOME/elicitty-bench, else ~/.cache/elicitty-bench)
# Prerequisites: bash 5, Linux /proc, Go (unless ELICITTY is set), Node >= 18 and npm
# (Debian: `apt-get install nodejs npm`), the npm registry reachable on the first run.
set -euo pipefail
cd "$(dirname "$0")/.."
me=compare.sh
. bench/lib.sh
root=$PWD
runs=${1:-20}
forms=${2:-50}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got \"$runs\""
[[ $forms =~ ^[0-9]+$ ]] && ((forms >= 2 && forms <= 1000)) || die "FORMS must be an integer from 2 to 1000, got \"$forms\""
protocol=2025-11-25
rss_runs=5

# Prerequisites.
((BASH_VERSINFO[0] >= 5)) || die "needs bash 5 or later (for EPOCHREALTIME), this is $BASH_VERSION"
[[ -r /proc/self/status ]] || die "needs Linux /proc (peak RSS is read from /proc/PID/status)"
command -v node >/dev/null || die "node not found: install Node.js 18 or later (Debian: apt-get install nodejs npm)"
command -v npm >/dev/null || die "npm not found: install it (Debian: apt-get install npm)"
node_version=$(node --version)
node_major=${node_version#v}
node_major=${node_major%%.*}
((node_major >= 18)) || die "node $node_version is too old: @modelcontextprotocol/sdk needs Node 18 or later"

if [[ -n ${ELICITTY:-} ]]; then
  [[ -x $ELICITTY ]] || die "ELICITTY=$ELICITTY is not an executable file"
  elicitty=$(cd "$(dirname "$ELICITTY")" && pwd)/$(basename "$ELICITTY")
else
  command -v go >/dev/null || die "go not found: install Go, or set ELICITTY to a built elicitty binary"
  mkdir -p bin
  go build -o bin/elicitty . || die "go build failed (set ELICITTY to a built elicitty binary to skip the build)"
  elicitty=$root/bin/elicitty
fi

# The TS client is installed outside the repository (bench/lib.sh).
install_ts_client
sdk_engines=$(node -p "require('$cache/node_modules/@modelcontextprotocol/sdk/package.json').engines?.node ?? ''")
elicitty_version=$("$elicitty" --version) || die "$elicitty --version failed"

make_tmp
mkfifo "$tmp/never"
exec {never}<>"$tmp/never" # never readable: `read -t` on it sleeps without a fork

# The commands, one line of argv per (client, job); TARGET is replaced per transport.
# elicitty: tools / call elicit_n; ts: client.mjs list / client.mjs elicit N.
cmd() { # cmd CLIENT JOB N TRANSPORT -> sets argv
  local client=$1 job=$2 n=$3 transport=$4
  local -a target
  if [[ $transport == stdio ]]; then target=(-- "$elicitty" serve-demo); else target=("$url"); fi
  case $client/$job in
  elicitty/list) argv=("$elicitty" tools --protocol "$protocol" "${target[@]}") ;;
  elicitty/elicit)
    if [[ $transport == stdio ]]; then
      argv=("$elicitty" call --protocol "$protocol" --answers "$tmp/answers.yaml" elicit_n "n=$n" "${target[@]}")
    else
      argv=("$elicitty" call --protocol "$protocol" --answers "$tmp/answers.yaml" "${target[@]}" elicit_n "n=$n")
    fi
    ;;
  ts/list) argv=(node "$cache/client.mjs" list "${target[@]}") ;;
  ts/elicit) argv=(node "$cache/client.mjs" elicit "$n" "${target[@]}") ;;
  esac
}

# check CLIENT JOB N TRANSPORT: the warm-up run; fails unless the work was really done.
check() {
  local -a argv
  cmd "$@"
  local out err
  if ! out=$(ELICITTY_BENCH_CHECK=1 "${argv[@]}" 2>"$tmp/err"); then
    die "warm-up failed: ${argv[*]}: $(tail -5 "$tmp/err")"
  fi
  case $2 in
  list) [[ $out == *elicit_n* || $out =~ ^[1-9][0-9]*\ tools$ ]] || die "unexpected tools output from ${argv[*]}: $out" ;;
  elicit) [[ $out == "answered $3 forms" ]] || die "unexpected elicit_n result from ${argv[*]}: $out" ;;
  esac
  if [[ $1 == ts ]]; then
    err=$(cat "$tmp/err")
    [[ $err == *"protocol $protocol"* ]] || die "the TS client did not negotiate $protocol: $err"
  fi
}

# timed CLIENT JOB N TRANSPORT: one run's wall time in microseconds, appended to a file.
timed() {
  local -a argv
  cmd "$@"
  local start=$EPOCHREALTIME
  "${argv[@]}" >/dev/null 2>&1 || die "run failed: ${argv[*]}"
  local end=$EPOCHREALTIME
  echo $((${end/./} - ${start/./})) >>"$tmp/$1-$2-$3-$4"
}

# rss CLIENT JOB N TRANSPORT: the client process's peak RSS in KiB, appended to a file.
rss() {
  local -a argv
  cmd "$@"
  "${argv[@]}" >/dev/null 2>&1 &
  local pid=$! hwm=0 seen k v _
  while :; do
    seen=0
    while read -r k v _; do
      if [[ $k == VmHWM: ]]; then hwm=$v seen=1; fi
    done 2>/dev/null <"/proc/$pid/status" || true
    ((seen)) || break # gone, or a zombie (no memory left to read)
    read -t 0.001 -u "$never" _ || true
  done
  wait "$pid" || die "run failed: ${argv[*]}"
  ((hwm > 0)) || die "could not read VmHWM of ${argv[*]}"
  echo "$hwm" >>"$tmp/rss-$1-$4"
}

# stats FILE -> "median p90" in microseconds (or KiB).
stats() {
  sort -n "$1" | awk '
    { t[NR] = $1 }
    END {
      n = NR
      med = (n % 2) ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2
      p = int(n * 0.9); if (p < n * 0.9) p++
      printf "%d %d\n", med, t[p]
    }'
}

measure() { # measure TRANSPORT
  local t=$1 i c first second
  for c in elicitty ts; do
    check "$c" list 0 "$t"
    check "$c" elicit "$forms" "$t"
    check "$c" elicit 1 "$t"
  done
  for ((i = 0; i < runs; i++)); do
    if ((i % 2)); then first=ts second=elicitty; else first=elicitty second=ts; fi
    for c in "$first" "$second"; do timed "$c" list 0 "$t"; done
    for c in "$first" "$second"; do timed "$c" elicit "$forms" "$t"; done
    for c in "$first" "$second"; do timed "$c" elicit 1 "$t"; done
  done
  for ((i = 0; i < rss_runs; i++)); do
    for c in elicitty ts; do rss "$c" elicit "$forms" "$t"; done
  done
}

printf 'compare.sh: stdio, %d runs each...\n' "$runs" >&2
measure stdio

printf 'compare.sh: Streamable HTTP, %d runs each...\n' "$runs" >&2
start_demo_http "$elicitty"
measure http

# The table.
ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.1f×", b / a; else printf "–" }'; }
printf '\nelicitty %s (%s) vs @modelcontextprotocol/sdk %s (engines node %s) on node %s; protocol %s;\n' \
  "${elicitty_version##* }" "$(go version 2>/dev/null | awk '{print $3}' || echo go)" "$sdk_version" "$sdk_engines" "$node_version" "$protocol"
printf 'server: elicitty serve-demo; %d timed runs per cell after one warm-up, clients alternating; %s, %d CPUs.\n\n' \
  "$runs" "$(uname -sr)" "$(nproc)"
printf '| transport | measure | elicitty | TS SDK client | TS / elicitty |\n'
printf '|---|---|---|---|---|\n'
for t in stdio http; do
  name=$t
  [[ $t == http ]] && name='Streamable HTTP'
  read -r e_med e_p90 < <(stats "$tmp/elicitty-list-0-$t")
  read -r s_med s_p90 < <(stats "$tmp/ts-list-0-$t")
  printf '| %s | cold start: connect + initialize + tools/list + close, median / p90 | %s / %s ms | %s / %s ms | %s |\n' \
    "$name" "$(ms "$e_med")" "$(ms "$e_p90")" "$(ms "$s_med")" "$(ms "$s_p90")" "$(ratio "$e_med" "$s_med")"
  read -r e_med e_p90 < <(stats "$tmp/elicitty-elicit-$forms-$t")
  read -r s_med s_p90 < <(stats "$tmp/ts-elicit-$forms-$t")
  printf '| %s | elicit_n n=%d, whole process, median / p90 | %s / %s ms | %s / %s ms | %s |\n' \
    "$name" "$forms" "$(ms "$e_med")" "$(ms "$e_p90")" "$(ms "$s_med")" "$(ms "$s_p90")" "$(ratio "$e_med" "$s_med")"
  read -r e_one _ < <(stats "$tmp/elicitty-elicit-1-$t")
  read -r s_one _ < <(stats "$tmp/ts-elicit-1-$t")
  e_per=$(awk -v a="$e_med" -v b="$e_one" -v n="$forms" 'BEGIN { printf "%.0f", (a - b) / (n - 1) }')
  s_per=$(awk -v a="$s_med" -v b="$s_one" -v n="$forms" 'BEGIN { printf "%.0f", (a - b) / (n - 1) }')
  printf '| %s | per elicitation: (median n=%d − median n=1) / %d | %s ms | %s ms | %s |\n' \
    "$name" "$forms" "$((forms - 1))" "$(awk -v u="$e_per" 'BEGIN { printf "%.2f", u / 1000 }')" \
    "$(awk -v u="$s_per" 'BEGIN { printf "%.2f", u / 1000 }')" "$(ratio "$e_per" "$s_per")"
  read -r e_rss _ < <(stats "$tmp/rss-elicitty-$t")
  read -r s_rss _ < <(stats "$tmp/rss-ts-$t")
  printf '| %s | peak RSS of the client process, elicit_n n=%d, median of %d | %s MiB | %s MiB | %s |\n' \
    "$name" "$forms" "$rss_runs" "$(awk -v k="$e_rss" 'BEGIN { printf "%.1f", k / 1024 }')" \
    "$(awk -v k="$s_rss" 'BEGIN { printf "%.1f", k / 1024 }')" "$(ratio "$e_rss" "$s_rss")"
done
