#!/usr/bin/env bash
# Checks the release configuration without publishing anything: `goreleaser check`,
# then a snapshot release of this machine's target only (the full matrix is six cross
# builds; CI time is better spent on tests) into a temporary directory, and a look
# inside the archive: binary, LICENSE, man pages, completions, checksums, and the
# version the binary reports. The Homebrew cask and Scoop manifest need the darwin and
# windows archives, so the one-target run skips them; `check` validates their config.
# ALL_TARGETS=1 builds the whole matrix with both manifests (as a release would).
set -euo pipefail
cd "$(dirname "$0")/.."

goreleaser() { go tool -modfile=tools/go.mod goreleaser "$@"; }

goreleaser check

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The snapshot is built from a clone of the committed HEAD, as a release is from its
# tag: goreleaser reads the commit and date from git and wants a remote (the clone's
# origin), and uncommitted files stay out.
commit=$(git rev-parse HEAD)
git clone --quiet "$PWD" "$out/src"
git -C "$out/src" checkout --quiet "$commit"
cd "$out/src"
goos=$(go env GOOS)
goarch=$(go env GOARCH)
cfg=$out/goreleaser.yaml
skip=publish
if [ "${ALL_TARGETS:-}" = 1 ]; then
  cp .goreleaser.yaml "$cfg"
else
  sed -e "s/^    goos: .*/    goos: [$goos]/" -e "s/^    goarch: .*/    goarch: [$goarch]/" .goreleaser.yaml >"$cfg"
  skip=publish,homebrew,scoop
fi
echo "dist: $out/dist" >>"$cfg"
goreleaser release --snapshot --clean --skip="$skip" --config "$cfg" >"$out/log" 2>&1 || {
  cat "$out/log" >&2
  echo "release-check: goreleaser release --snapshot failed" >&2
  exit 1
}

archive=$(ls "$out"/dist/elicitty_*_"${goos}"_"${goarch}".tar.gz)
listing=$(tar -tzf "$archive")
for want in elicitty LICENSE README.md man/elicitty.1.gz man/elicitty-call.1.gz \
  completions/elicitty.bash completions/elicitty.zsh completions/elicitty.fish completions/elicitty.ps1; do
  if ! grep -qx "$want" <<<"$listing"; then
    echo "release-check: $archive lacks $want; it has:" >&2
    echo "$listing" >&2
    exit 1
  fi
done
(cd "$out/dist" && sha256sum --check --ignore-missing --quiet checksums.txt)
mkdir "$out/x"
tar -xzf "$archive" -C "$out/x"
version=$("$out/x/elicitty" --version)
case "$version" in
  "elicitty version "*"-next (commit ${commit:0:12}, built "*) ;;
  *)
    echo "release-check: the snapshot reports \"$version\", want its version, commit ${commit:0:12} and date" >&2
    exit 1
    ;;
esac
if [ "${ALL_TARGETS:-}" = 1 ]; then
  for f in homebrew/Casks/elicitty.rb scoop/elicitty.json; do
    [ -s "$out/dist/$f" ] || { echo "release-check: no $f in dist" >&2; ls -R "$out/dist" >&2; exit 1; }
  done
fi
echo "release-check: $(basename "$archive") ok ($version)"
