#!/usr/bin/env bash
# `elicitty proxy` side by side with a direct connection and with the relays people use
# for the same job, in one run. The host is a client on the official TypeScript SDK
# (bench/ts-client/calls.mjs) making CALLS sequential tools/call of bench/fakeserver's
# tool-0 (answered at once, so the relay is all that differs), after one warm-up call:
#
#   stdio   direct        client -> fakeserver
#   stdio   copy relay    client -> bench/copyrelay -> fakeserver (the floor: a Go relay
#                         that copies bytes and reads no message)
#   stdio   C copy relay  client -> bench/crelay -> fakeserver (the same in C, no runtime;
#                         left out, with a note, when there is no C compiler)
#   stdio   elicitty      client -> elicitty proxy -> fakeserver
#   HTTP    direct        client over Streamable HTTP -> supergateway -> fakeserver
#   HTTP    elicitty      client -> elicitty proxy URL -> supergateway -> fakeserver
#   HTTP    mcp-remote    client -> mcp-remote URL -> supergateway -> fakeserver
#
# For each: the p50, p90 and p99 of one call's round trip as the client sees it, the
# throughput (calls per second over the timed calls) and its ratio to direct; for
# elicitty and the copy relays also the relay's own CPU per forwarded call ((CPU of a
# CALLS run - CPU of a 10-call run) / (CALLS - 10), bench/clientcpu reading the relay
# process alone, in 10 ms ticks) and its peak RSS. Medians over RUNS runs, the setups alternating so that drift in load
# hits them alike. The HTTP rows share one supergateway (stateful Streamable HTTP in
# front of one fakeserver); the peers are installed from bench/peers (pinned) outside
# the repository, and their rows are left out, with a note, when npm cannot install them.
#
# Usage: bench/proxy.sh [RUNS [CALLS]]   (defaults: 5 runs, 2000 calls)
# Prerequisites: Linux /proc, bash 5, Go, Node >= 18 and npm (the registry reachable on
# the first run).
set -euo pipefail
cd "$(dirname "$0")/.."
me=proxy.sh
. bench/lib.sh
root=$PWD
runs=${1:-5}
calls=${2:-2000}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer"
[[ $calls =~ ^[0-9]+$ ]] && ((calls > 10)) || die "CALLS must be an integer > 10"

mkdir -p bin
go build -o bin/elicitty . && go build -o bin/ ./bench/fakeserver ./bench/clientcpu ./bench/copyrelay || die "go build failed"
elicitty=$root/bin/elicitty
fake=$root/bin/fakeserver
cpu=$root/bin/clientcpu
copy=$root/bin/copyrelay
crelay=$root/bin/crelay
have_cc=0
if command -v cc >/dev/null && cc -O2 -pthread -o "$crelay" bench/crelay/relay.c; then
  have_cc=1
else
  printf '%s: no C compiler (cc): the C copy relay row is left out\n' "$me" >&2
fi

install_ts_client
cp bench/ts-client/calls.mjs "$cache/calls.mjs"
make_tmp

# The peers, outside the repository like the TS client.
peers=${ELICITTY_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/elicitty-bench}/peers
have_peers=0
mkdir -p "$peers"
stamp=$(cat bench/peers/package.json bench/peers/package-lock.json | cksum)
if [[ -f $peers/.stamp && $(cat "$peers/.stamp") == "$stamp" ]]; then
  have_peers=1
else
  cp bench/peers/package.json bench/peers/package-lock.json "$peers/"
  if npm ci --prefix "$peers" --no-audit --no-fund --loglevel=error >&2; then
    printf '%s' "$stamp" >"$peers/.stamp"
    have_peers=1
  else
    printf '%s: npm could not install mcp-remote and supergateway: their rows are left out\n' "$me" >&2
  fi
fi

# supergateway in front of fakeserver, for the HTTP rows.
url=
if ((have_peers)); then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 18765)
  node "$peers/node_modules/supergateway/dist/index.js" --stdio "$fake" --outputTransport streamableHttp --stateful \
    --port "$port" --logLevel none >"$tmp/sg.log" 2>&1 &
  server_pid=$!
  url=http://127.0.0.1:$port/mcp
  for _ in $(seq 100); do
    node "$cache/calls.mjs" 11 "$url" >/dev/null 2>&1 && break
    kill -0 "$server_pid" 2>/dev/null || die "supergateway did not start: $(cat "$tmp/sg.log")"
    sleep 0.1
  done
fi

# one SETUP N: one run; appends "p50 p90 p99 total_ms" to $tmp/SETUP-N (and the proxy's
# "cpu_us rss_kib" to $tmp/SETUP-N.cpu).
one() {
  local setup=$1 n=$2 out
  local -a argv
  case $setup in
  stdio-direct) argv=(-- "$fake") ;;
  stdio-copy) argv=(-- "$cpu" "$tmp/$setup-$n.cpu" "$copy" "$fake") ;;
  stdio-ccopy) argv=(-- "$cpu" "$tmp/$setup-$n.cpu" "$crelay" "$fake") ;;
  stdio-elicitty) argv=(-- "$cpu" "$tmp/$setup-$n.cpu" "$elicitty" proxy --answers "$tmp/answers.yaml" -- "$fake") ;;
  http-direct) argv=("$url") ;;
  http-elicitty) argv=(-- "$cpu" "$tmp/$setup-$n.cpu" "$elicitty" proxy --answers "$tmp/answers.yaml" "$url") ;;
  http-mcp-remote) argv=(-- node "$peers/node_modules/mcp-remote/dist/proxy.js" "$url" --allow-http --transport http-only) ;;
  esac
  out=$(node "$cache/calls.mjs" "$n" "${argv[@]}" 2>"$tmp/err") || die "run failed: $setup: $(tail -3 "$tmp/err")"
  echo "$out" >>"$tmp/$setup-$n"
}

setups=(stdio-direct)
((have_cc)) && setups+=(stdio-ccopy)
setups+=(stdio-copy stdio-elicitty)
((have_peers)) && setups+=(http-direct http-elicitty http-mcp-remote)
for s in "${setups[@]}"; do one "$s" 11; done # warm-up (and a check), not counted
rm -f "$tmp"/*-11 "$tmp"/*-11.cpu
printf '%s: %d runs of %d calls per setup...\n' "$me" "$runs" "$calls" >&2
for _ in $(seq "$runs"); do
  for s in "${setups[@]}"; do
    one "$s" "$calls"
    [[ $s == *elicitty || $s == *copy ]] && one "$s" 10 # the start-up CPU to subtract
  done
done

median() { # median FILE COLUMN
  awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ms() { awk -v u="$1" 'BEGIN { printf "%.3f", u / 1000 }'; }

printf '\nelicitty %s, @modelcontextprotocol/sdk %s on node %s' "$("$elicitty" --version | awk '{print $NF}')" "$sdk_version" "$(node --version)"
((have_peers)) && printf ', supergateway %s, mcp-remote %s' \
  "$(node -p "require('$peers/node_modules/supergateway/package.json').version")" \
  "$(node -p "require('$peers/node_modules/mcp-remote/package.json').version")"
printf '\n%s, %d CPUs, load %s; %d sequential tools/call per run, medians of %d runs\n\n' \
  "$(uname -sr)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$calls" "$runs"
printf '| transport | relay | p50 | p90 | p99 | calls/s | vs direct | relay CPU per call | relay peak RSS |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for s in "${setups[@]}"; do
  f=$tmp/$s-$calls
  tr=${s%%-*}
  relay=${s#*-}
  p50=$(median "$f" 1) p90=$(median "$f" 2) p99=$(median "$f" 3) total=$(median "$f" 4)
  rate=$(awk -v n="$calls" -v t="$total" 'BEGIN { printf "%d", n / (t / 1000) }')
  [[ $relay == direct ]] && eval "direct_$tr=$rate"
  base=direct_$tr
  ratio=$(awk -v r="$rate" -v b="${!base}" 'BEGIN { printf "%.2fx", r / b }')
  cpucol=- rsscol=-
  if [[ $relay == elicitty || $relay == *copy ]]; then
    big=$(median "$f.cpu" 1) small=$(median "$tmp/$s-10.cpu" 1)
    cpucol=$(awk -v b="$big" -v s="$small" -v n="$calls" 'BEGIN { printf "%d µs", (b - s) / (n - 10) }')
    rsscol=$(awk -v k="$(median "$f.cpu" 2)" 'BEGIN { printf "%.1f MiB", k / 1024 }')
  fi
  name=stdio
  [[ $relay == copy ]] && relay='copy relay in Go (bench/copyrelay)'
  [[ $relay == ccopy ]] && relay='copy relay in C (bench/crelay)'
  [[ $tr == http ]] && name='Streamable HTTP (supergateway in front of the server)'
  printf '| %s | %s | %s ms | %s ms | %s ms | %s | %s | %s | %s |\n' "$name" "$relay" "$(ms "$p50")" "$(ms "$p90")" "$(ms "$p99")" "$rate" "$ratio" "$cpucol" "$rsscol"
done
