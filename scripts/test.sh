#!/usr/bin/env bash
# Runs every check elicitty has: formatting, vet, staticcheck, go mod tidy, the release
# configuration (goreleaser check and a one-target snapshot), unit and end-to-end tests
# (demo server and @modelcontextprotocol/server-everything over stdio and HTTP, tmux,
# headless Chromium), bounded fuzzing, and the MCP conformance client scenarios.
# Installs what is missing first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

SETUP_OUT=$(bash scripts/setup.sh)
EVERYTHING_JS=$(tail -n 1 <<<"$SETUP_OUT")
export ELICITTY_EVERYTHING_JS=$EVERYTHING_JS
# The TypeScript SDK's example servers, for the field interop tests.
ELICITTY_TS_SDK_EXAMPLES=$(tail -n 2 <<<"$SETUP_OUT" | head -n 1)
export ELICITTY_TS_SDK_EXAMPLES
# The host matrix's programs (Node 22, the TypeScript SDK, the MCP Inspector, mcpc,
# Claude Code): setup.sh prints them as NAME=PATH lines.
while IFS='=' read -r name path; do
  export "$name=$path"
done < <(grep -E '^ELICITTY_[A-Z0-9_]+=' <<<"$SETUP_OUT")
export PATH="$(go env GOPATH)/bin:$PATH"
# Tells the tests whose tools setup.sh installed that a missing one is a failure, not a skip.
export ELICITTY_E2E=1

# stage NAME: prints the stage's heading with the time since the script started, so a
# slow run shows where its minutes went.
stage() { printf '== %s (at %dm%02ds)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }

stage "gofmt, go vet, staticcheck"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
go tool -modfile=tools/go.mod staticcheck ./...

# ---- module hygiene and release checks (go.mod, tools/go.mod, .goreleaser.yaml) ----
stage "go mod tidy"
go mod tidy -diff
(cd tools && go mod tidy -diff)
# Developer tools live in tools/go.mod: none of their modules may reach the binary.
if go list -deps -f '{{with .Module}}{{.Path}}{{end}}' . | grep -E '^(honnef\.co/go/tools|github\.com/goreleaser/)' >/dev/null; then
  echo "a developer tool's module is linked into elicitty" >&2
  exit 1
fi
stage "goreleaser check and snapshot (one target: $(go env GOOS)/$(go env GOARCH))"
bash scripts/release-check.sh
# ---- end of module hygiene and release checks ----

stage "build"
mkdir -p bin
go build -o bin/elicitty .

# e2e/ spends its minutes waiting on hosts, servers, browsers and scripted delays (a
# fifth of two cores), so it runs beside the stages that keep the CPU busy (the other
# packages, the race run, fuzzing) rather than before them: a loaded machine is one its
# tests must pass on anyway. It runs in a process group of its own, stopped if the script
# ends first; its output is printed when it has ended, before the conformance suites,
# which run alone.
e2elog=$(mktemp -t elicitty-e2e.XXXXXX)
fresh=""
e2epid=""
cleanup() {
  if [ -n "$e2epid" ]; then kill -- "-$e2epid" 2>/dev/null || true; fi
  rm -f "$e2elog"
  if [ -n "$fresh" ]; then rm -rf "$fresh"; fi
}
trap cleanup EXIT
stage "go test ./e2e/ started, beside the stages that follow"
setsid -w go test -count=1 -timeout 20m ./e2e/ >"$e2elog" 2>&1 &
e2epid=$!

stage "go test (every tier but e2e/: unit, goldens, in-process end-to-end runs)"
go test -count=1 -timeout 20m $(go list ./... | grep -v '/e2e$')

# The end-to-end tier drives a binary built without the race detector, so the race run
# covers the quick tier, where the concurrent code runs in the test process.
stage "go test -race -short"
go test -count=1 -race -short -timeout 20m ./...

stage "fuzz (bounded)"
# A finding writes its failing input and fails the run. Go's fuzzing coordinator can also
# end a run with a bare "context deadline exceeded" and no input written, when -fuzztime
# runs out while a starved worker is mid-call (a race in the coordinator, not a finding);
# such a target is run again, up to three more times (in one CI run the race hit 2 of 27
# targets once each), and fails the run if every try ends that way.
FUZZTIME=${FUZZTIME:-5s}
fuzzlog="${TMPDIR:-/tmp}/elicitty-fuzz.log"
while read -r pkg target; do
  for try in 1 2 3 4; do
    if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg" >"$fuzzlog" 2>&1; then
      echo "fuzz $pkg $target: ok"
      break
    fi
    if ((try < 4)) && ! grep -q 'Failing input written' "$fuzzlog" && grep -q 'context deadline exceeded' "$fuzzlog"; then
      echo "fuzz $pkg $target: the coordinator's deadline race (no input written); again"
      continue
    fi
    cat "$fuzzlog" >&2
    echo "fuzz $pkg $target: FAILED (a failing input, if one was found, is under $pkg/testdata/fuzz/$target)" >&2
    exit 1
  done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
  d=$(dirname "$f")
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | while read -r t; do echo "./${d#./} $t"; done
done | sort -u)

stage "bench smoke (a few benchmarks once, the bench programs built, the scripts parsed; no timing asserted)"
go test -run '^$' -bench 'ElicitRoundTrip|Parse50$|View50$' -benchtime 1x ./transport ./elicit ./tui/form >/dev/null
go build -o "${TMPDIR:-/tmp}" ./bench/...
for f in bench/*.sh; do bash -n "$f"; done
if command -v cc >/dev/null; then cc -fsyntax-only -Wall -Wextra -Werror -pthread bench/crelay/relay.c; fi

# A fresh clone has no folders beside it: copy what a commit would hold (tracked and new,
# unignored files) into an empty temporary folder and run set-up, build, the
# self-containment test and one conformance scenario there.
stage "fresh copy in an empty folder"
fresh=$(mktemp -d -t elicitty-fresh.XXXXXX)
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  if [ -e "$f" ]; then mkdir -p "$fresh/elicitty/$(dirname "$f")" && cp -p "$f" "$fresh/elicitty/$f"; fi
done
(
  cd "$fresh/elicitty"
  bash scripts/setup.sh >/dev/null
  go build -o bin/elicitty .
  go test -count=1 -run 'TestRepositoryIsSelfContained' ./internal/repocheck
  bash scripts/conformance.sh --suite stable --scenario initialize
)

stage "go test ./e2e/ (its output; it ran beside the stages above)"
e2erc=0
wait "$e2epid" || e2erc=$?
e2epid=""
cat "$e2elog"
if ((e2erc != 0)); then
  echo "go test ./e2e/ failed (exit code $e2erc)" >&2
  exit "$e2erc"
fi

# The repository's own conformance runner, over every client scenario of both pinned
# suites (extensions included); results stay in a temporary folder. sse-retry is timing
# sensitive, so nothing else runs while it does. The last line is the closing count.
stage "conformance (alpha suite: every client scenario)"
bash scripts/conformance.sh --suite alpha --all
stage "conformance (stable suite: every client scenario)"
bash scripts/conformance.sh --suite stable --all
stage "done"
