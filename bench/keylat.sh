#!/usr/bin/env bash
# Whole-process measurements in a real terminal (tmux, 120x40): time to content, key-to-
# screen latency and peak RSS of elicitty at scale, next to a bare bubbletea program
# (bench/baseline), which is the floor of what any bubbletea TUI can do here.
#
#   time to content: from starting the program until the screen shows MARKER, the median
#     of STARTS starts (environment, default 5; the last one stays up for the keys);
#   key latency: from `tmux send-keys KEY` until capture-pane shows a changed screen,
#     KEYS presses, median and p90 (the polling of capture-pane is in every figure, the
#     baseline's included: compare the rows, not the absolute numbers). Each scenario has
#     the floor running beside it, and each of its keys follows one sent to the floor, so
#     that a row and its floor are measured under the same load;
#   idle CPU: the program's own CPU time per second over IDLE seconds (environment,
#     default 5) with nothing typed, after the keys and one second to settle;
#   peak RSS: VmHWM of the program at the end.
#
# Scenarios (fake servers from bench/fakeserver): the tools list with 100 and 10,000
# tools (elicitty TUI, Down), the inline form of one enum with 1,000, 50,000 and
# 1,000,000 options and of a oneOf of 300,000 titled options (elicitty call pick,
# Down), an inline form of 200 text fields
# (elicitty call fill, typing a letter), a form open with 999 more requests pending
# in the inbox, and the log after 100,000 server stderr lines (elicitty TUI, Down).
#
# Start-up with 30 configured servers, each 1 s slow to start: the time to the first frame
# and until every server's tool is listed (connects run in parallel: about 1 s, not 30),
# in a 120x80 terminal so that all 30 tools are on screen.
#
# Usage: bench/keylat.sh [KEYS [PATTERN]]   (default 30 keys; PATTERN, an extended regular
# expression, runs only the scenarios whose name matches it, e.g. 'tools|1000000 options')
# Prerequisites: Linux, tmux, Go.
set -euo pipefail
cd "$(dirname "$0")/.."
keys=${1:-30}
only=${2:-}
starts=${STARTS:-5}
command -v tmux >/dev/null || { echo "keylat.sh: tmux not found" >&2; exit 1; }
mkdir -p bin
go build -o bin/elicitty . && go build -o bin/ ./bench/fakeserver ./bench/baseline
# fresh: ends the tmux server of the last start and names a new one, so that a start
# never races the end of the one before (tmux: "server exited unexpectedly").
nsock=0
fresh() {
  tm kill-server 2>/dev/null || true
  nsock=$((nsock + 1))
  sock=elicitty-keylat-$$-$nsock
}
sock=elicitty-keylat-$$-0
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT
now() { echo "${EPOCHREALTIME/./}"; }
# cputicks PID: the process's user + system time so far, in clock ticks.
cputicks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
idle_secs=${IDLE:-5}

# run NAME MARKER KEY CMD...: one scenario, one Markdown row.
run() {
  local name=$1 marker=$2 key=$3
  shift 3
  if [[ -n $only ]] && ! grep -qE -- "$only" <<<"$name"; then return 0; fi
  local t0 t1 ready ttcs=() r
  for r in $(seq "$starts"); do # the last start stays up for the keys
    fresh
    ready=0
    t0=$(now)
    tm new-session -d -s b -x 120 -y 40 "exec $*"
    for _ in $(seq 30000); do
      if tm capture-pane -p -t b 2>/dev/null | grep -qF -- "$marker"; then ready=1; break; fi
    done
    t1=$(now)
    ((ready)) || { echo "keylat.sh: $name never showed \"$marker\"" >&2; tm capture-pane -p -t b >&2 || true; return 1; }
    ttcs+=($((t1 - t0)))
  done
  if [[ -n ${setup_keys:-} ]]; then # keys that bring the screen to measure, and its marker
    local k
    for k in $setup_keys; do
      tm send-keys -t b "$k"
      sleep 0.3
    done
    ready=0
    for _ in $(seq 30000); do
      if tm capture-pane -p -t b 2>/dev/null | grep -qF -- "$setup_marker"; then ready=1; break; fi
    done
    ((ready)) || { echo "keylat.sh: $name never showed \"$setup_marker\"" >&2; tm capture-pane -p -t b >&2 || true; return 1; }
  fi
  local pid
  pid=$(tm list-panes -t b -F '#{pane_pid}')
  # The floor runs beside the scenario, in the same tmux server: each key to the
  # scenario follows one to the floor, so both meet the same load at the same moment.
  local paired=0
  if [[ $1 != ./bin/baseline ]]; then
    paired=1
    tm new-session -d -s f -x 120 -y 40 "exec ./bin/baseline"
    ready=0
    for _ in $(seq 30000); do
      if tm capture-pane -p -t f 2>/dev/null | grep -qF "baseline ready"; then ready=1; break; fi
    done
    ((ready)) || { echo "keylat.sh: the floor beside $name never started" >&2; return 1; }
  fi
  sleep 0.5 # let start-up work settle (listing, first frames)
  local lat=() flat=()
  for _ in $(seq "$keys"); do
    if ((paired)); then
      press f x
      flat+=("$took")
    fi
    press b "$key"
    lat+=("$took")
  done
  # Idle CPU: the program's own CPU time over IDLE seconds with nothing typed, after one
  # to settle (utime + stime of /proc/PID/stat, in 10 ms ticks).
  local c0 c1 idle
  sleep 1
  c0=$(cputicks "$pid")
  sleep "$idle_secs"
  c1=$(cputicks "$pid")
  idle=$(awk -v a="$c0" -v b="$c1" -v s="$idle_secs" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) * 1000 / hz / s }')
  local hwm
  hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
  local ttc
  ttc=$(printf '%s\n' "${ttcs[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  local floor="–"
  ((paired)) && floor=$(stats "${flat[@]}")
  printf '| %s | %.2f s | %s | %s | %s ms/s | %.1f MiB |\n' "$name" "$(awk -v t="$ttc" 'BEGIN { print t / 1e6 }')" \
    "$(stats "${lat[@]}")" "$floor" "$idle" "$(awk -v k="$hwm" 'BEGIN { print k / 1024 }')"
  tm kill-server 2>/dev/null || true
}

# press SESSION KEY: sends KEY and sets took to the µs until the screen changed.
press() {
  local before after s pause
  before=$(tm capture-pane -p -e -t "$1")
  s=$(now)
  tm send-keys -t "$1" "$2"
  while :; do
    after=$(tm capture-pane -p -e -t "$1")
    [[ $after != "$before" ]] && break
    (($(now) - s > 5000000)) && { echo "keylat.sh: $name: no change within 5 s of $2" >&2; break; }
  done
  took=$(($(now) - s))
  # A random pause, so that keys land at every phase of the renderer's frame clock
  # (60 fps) rather than at one phase a fixed cadence could lock onto.
  printf -v pause '0.%03d' $((25 + RANDOM % 17))
  sleep "$pause"
}

# stats µs...: "median / p90 ms" of the latencies.
stats() {
  printf '%s\n' "$@" | sort -n | awk '
    { v[NR] = $1 }
    END {
      med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      p = int(NR * 0.9); if (p < NR * 0.9) p++
      printf "%.1f / %.1f ms", med / 1000, v[p] / 1000
    }'
}

printf '%s, %d CPUs; tmux 120x40; %d keys per row\n\n' "$(uname -sr)" "$(nproc)" "$keys"
printf '| scenario | time to content | key latency, median / p90 | the floor beside it, median / p90 | idle CPU | peak RSS |\n|---|---|---|---|---|---|\n'
run "bare bubbletea (floor)" "baseline ready" x ./bin/baseline
run "TUI, 100 tools (Down)" "tool-0 " Down ./bin/elicitty -- ./bin/fakeserver -tools 100
run "TUI, 10,000 tools (Down)" "tool-0 " Down ./bin/elicitty -- ./bin/fakeserver -tools 10000
for n in 1000 50000 1000000; do
  run "inline form, enum of $n options (Down)" "Pick one" Down ./bin/elicitty call pick -- ./bin/fakeserver -tools 0 -enum "$n"
done
# 300,000 titled choices are about as many as one 16 MiB message holds: a longer request
# is refused unread.
run "inline form, oneOf of 300000 titled options (Down)" "Pick one" Down ./bin/elicitty call pick -- ./bin/fakeserver -tools 0 -enum 300000 -titled
# A form of 200 text fields: each key types a letter into the first field.
run "inline form, 200 fields (typing)" "Field 0" x ./bin/elicitty call fill -- ./bin/fakeserver -tools 0 -fields 200
# The flood tool sends 1,000 elicitations at once: Enter calls it and the first one opens,
# the other 999 wait in the inbox.
setup_keys="Enter" setup_marker="999 more pending" \
  run "TUI, a form with 999 more pending (Down)" " flood " Down ./bin/elicitty -- ./bin/fakeserver -tools 0 -pending 1000
# 100,000 stderr lines fill the log; the Log tab is two tabs away (Tab Tab... from Tools).
setup_keys="Tab Tab Tab" setup_marker="log line 100000" \
  run "TUI, log after 100000 lines (Up)" "fakeserver" Up ./bin/elicitty -- ./bin/fakeserver -tools 1 -stderr 100000

# Start-up with 30 slow servers.
if [[ -n $only ]] && ! grep -qE -- "$only" <<<"30 servers"; then exit 0; fi
cfg=$(mktemp -d)
trap 'tm kill-server 2>/dev/null || true; rm -rf "$cfg"' EXIT
{
  echo "servers:"
  for i in $(seq -w 0 29); do
    printf '  s%s:\n    command: %s\n    args: [-tools, "1", -delay, 1s]\n' "$i" "$PWD/bin/fakeserver"
  done
} >"$cfg/elicitty.yaml"
fresh
t0=$(now)
tm new-session -d -s b -x 120 -y 80 "exec ./bin/elicitty --config $cfg/elicitty.yaml" # tall enough to list all 30
first=0 all=0
for _ in $(seq 30000); do
  screen=$(tm capture-pane -p -t b 2>/dev/null || true)
  if ((first == 0)) && [[ $screen == *Servers* ]]; then first=$(now); fi
  if (($(grep -c ' tool-0 ' <<<"$screen") >= 30)); then all=$(now); break; fi
done
((all > 0)) || { echo "keylat.sh: not every server listed its tool" >&2; tm capture-pane -p -t b >&2; exit 1; }
printf '\n| 30 servers, each 1 s slow to start | first frame | all 30 listed |\n|---|---|---|\n'
awk -v a="$((first - t0))" -v b="$((all - t0))" 'BEGIN { printf "| elicitty TUI | %.2f s | %.2f s |\n", a / 1e6, b / 1e6 }'
