#!/usr/bin/env bash
# The Windows figures under Wine (bench/run.sh calls it): makes a throwaway
# prefix (scripts/wine/prefix.sh), builds the Windows exe, runs
# bench/wine (launcher killed -> tree gone, Wine next to Linux) and
# bench/handoff with -wine-exe (restart and adopt handoffs, Wine next to
# Linux; HANDOFF_N handoffs per mode, default 10) and bench/update with
# -wine (self-updates through `update apply`, Wine next to Linux; UPDATE_N
# each, default 5; no patches: bench/update measures those), then times
# the Windows test lane itself, warm (its build cache filled by a first run).
# usage: bench/wine/run.sh [-n 20]
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-windows-test-deps.sh >/dev/null
work=$(mktemp -d /tmp/hermes-bench-wine.XXXXXX)
. scripts/wine/prefix.sh
trap 'wine_prefix_end; rm -rf "$work"' EXIT
wine_prefix "$work/prefix"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$work/hermes-desktop.exe" .
go run ./bench/wine -exe "$work/hermes-desktop.exe" "$@"
echo
# The update handoffs, the Windows app under Wine beside Linux in one table.
go run ./bench/handoff -n "${HANDOFF_N:-10}" -wine-exe "$work/hermes-desktop.exe"
echo
# The self-update, the Windows install under Wine beside Linux in one table.
go run ./bench/update -n "${UPDATE_N:-5}" -size 16 -deltas=false -wine
wine_prefix_end

scripts/wine/test-windows.sh >/dev/null 2>&1 || true # warms the build cache
start=$(date +%s%N)
lane=ok
scripts/wine/test-windows.sh >"$work/lane.log" 2>&1 || lane=FAILED
ms=$((($(date +%s%N) - start) / 1000000))
echo
echo "the Windows test lane (make test-windows), warm: $((ms / 1000)).$((ms % 1000 / 100)) s ($lane; goal: under 5 minutes)"
