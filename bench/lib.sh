# Shared set-up of bench/compare.sh and bench/cpu.sh, sourced by both from the repository
# root: the TypeScript SDK client's install, the temporary directory with the answers file
# and its clean-up, the demo server over Streamable HTTP. Each script sets `me` (its name,
# for messages) before sourcing this file.

die() {
  printf '%s: %s\n' "${me:-bench}" "$*" >&2
  exit 1
}

# install_ts_client: installs bench/ts-client outside the repository, from the pinned
# package.json and package-lock.json (again when either changes), and sets `cache` (its
# directory, holding client.mjs) and `sdk_version`. Needs node and npm, and the npm
# registry on the first run.
install_ts_client() {
  command -v node >/dev/null || die "node not found: install Node.js 18 or later (Debian: apt-get install nodejs npm)"
  command -v npm >/dev/null || die "npm not found: install it (Debian: apt-get install npm)"
  cache=${ELICITTY_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/elicitty-bench}/ts-client
  local src=$PWD/bench/ts-client stamp
  mkdir -p "$cache"
  stamp=$(cat "$src/package.json" "$src/package-lock.json" | cksum)
  if [[ ! -f $cache/.stamp || $(cat "$cache/.stamp") != "$stamp" || ! -d $cache/node_modules/@modelcontextprotocol/sdk ]]; then
    cp "$src/package.json" "$src/package-lock.json" "$cache/"
    rm -f "$cache/.stamp"
    npm ci --prefix "$cache" --no-audit --no-fund --loglevel=error >&2 ||
      die "npm ci of bench/ts-client failed (is the npm registry reachable?)"
    printf '%s' "$stamp" >"$cache/.stamp"
  fi
  cp "$src/client.mjs" "$cache/client.mjs"
  sdk_version=$(node -p "require('$cache/node_modules/@modelcontextprotocol/sdk/package.json').version") ||
    die "cannot read the installed @modelcontextprotocol/sdk version"
}

# make_tmp: sets `tmp`, a temporary directory removed on exit (with the demo server
# start_demo_http started, if any), holding answers.yaml, the answers file that accepts
# every form with its defaults.
make_tmp() {
  tmp=$(mktemp -d)
  server_pid=
  trap cleanup EXIT
  printf -- '- match: {}\n  action: accept\n' >"$tmp/answers.yaml"
}

cleanup() {
  if [[ -n ${server_pid:-} ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}

# start_demo_http ELICITTY: starts `ELICITTY serve-demo` on a free port of 127.0.0.1
# and sets `url` to its endpoint (the server ends with the script).
start_demo_http() {
  "$1" serve-demo --http 127.0.0.1:0 2>"$tmp/server.err" &
  server_pid=$!
  url=
  local _
  for _ in $(seq 100); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$tmp/server.err" | head -1) || true
    [[ -n $url ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || die "the demo server did not start: $(cat "$tmp/server.err")"
    sleep 0.05
  done
  die "the demo server printed no endpoint within 5 s"
}
