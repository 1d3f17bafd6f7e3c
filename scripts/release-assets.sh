#!/usr/bin/env bash
# Generates what release archives carry besides the binary: shell completions and one
# man page per command, from the cobra command tree of this checkout. goreleaser runs
# it as a before hook; the output goes to build/ (gitignored).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${1:-dev}
rm -rf build/completions build/man
mkdir -p build/completions build/man
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -ldflags "-X github.com/elicitty/elicitty/internal/cli.version=$VERSION" -o "$tmp/elicitty" .
for sh in bash zsh fish powershell; do
  "$tmp/elicitty" completion "$sh" >"build/completions/elicitty.$sh"
done
mv build/completions/elicitty.powershell build/completions/elicitty.ps1
"$tmp/elicitty" man build/man
gzip -9 -n build/man/*.1
