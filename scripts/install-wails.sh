#!/usr/bin/env bash
# Builds the Wails CLI v2.9.2 into <repo>/.tools/bin/wails, once.
#
# `go install github.com/wailsapp/wails/v2/cmd/wails@v2.9.2` fails on Go 1.26:
# the golang.org/x/tools it pins is too old for the new toolchain. So we build
# it in a throwaway module where x/tools can be raised to a version that works.
set -euo pipefail

WAILS_VERSION=v2.9.2
XTOOLS_VERSION=v0.30.0

repo=$(cd "$(dirname "$0")/.." && pwd)
bin=$repo/.tools/bin
wails=$bin/wails

# Idempotent: keep a binary whose `wails version` (first line; a sponsor
# banner follows) is the pinned version.
have=
if [ -x "$wails" ]; then
	have=$("$wails" version 2>/dev/null | head -n1 || true)
fi
if [ "$have" = "$WAILS_VERSION" ]; then
	echo "wails $WAILS_VERSION already at $wails"
	exit 0
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$bin"
echo "building wails $WAILS_VERSION into $wails ..."

# go's chatter goes to a log that is shown only when a step fails.
log=$scratch/build.log
run() { "$@" >>"$log" 2>&1 || { cat "$log" >&2; echo "install-wails: failed: $*" >&2; exit 1; }; }

cd "$scratch"
run go mod init scratch
run go get "github.com/wailsapp/wails/v2/cmd/wails@$WAILS_VERSION"
# Raise the x/tools wails pins; that old version does not compile on Go 1.26.
run go get "golang.org/x/tools@$XTOOLS_VERSION" "golang.org/x/tools/go/packages@$XTOOLS_VERSION"
# Build beside, then move: `go build -o` refuses to overwrite a file that is
# not a Go binary (e.g. a stub), and the move never leaves a half-written one.
run go build -o "$scratch/wails" github.com/wailsapp/wails/v2/cmd/wails
mv -f "$scratch/wails" "$wails"

echo "wails $("$wails" version | head -n1) installed at $wails"
