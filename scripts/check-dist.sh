#!/usr/bin/env bash
# Checks that the built page holds no simulated engine: frontend/dist is
# embedded in the binary, and src/mock.ts (with src/mockupdate.ts) is for
# `npm run dev` in a plain browser only (src/main.ts). A user must never
# see invented backends (issue 24). Run after `npm run build`.
#
# usage: scripts/check-dist.sh [DIST_DIR]
set -euo pipefail

dist=${1:-frontend/dist}
fail() { echo "check-dist: FAIL: $*" >&2; exit 1; }

[ -f "$dist/index.html" ] || fail "$dist/index.html is missing: build the page first (make frontend)"
# Strings only the simulated engine carries: its home directory, its log
# chatter, its update notes. Minifying keeps string literals.
markers=("/home/ada" "mimir reindex" "the update banner you are looking at")
for m in "${markers[@]}"; do
	if hits=$(grep -rlF -- "$m" "$dist"); then
		fail "$dist holds the simulated engine (\"$m\" in $(echo "$hits" | tr '\n' ' '))"
	fi
done
if chunk=$(find "$dist" -iname '*mock*' | grep .); then
	fail "$dist holds a mock chunk: $chunk"
fi
echo "check-dist: $dist holds no simulated engine"
