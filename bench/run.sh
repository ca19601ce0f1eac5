#!/usr/bin/env bash
# Runs every benchmark side by side on this machine and writes the figures,
# with the date, the machine and the exact commands, to bench/RESULTS.md.
# usage: bench/run.sh   (make bench)
set -euo pipefail
cd "$(dirname "$0")/.."

out=bench/RESULTS.md
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

benches=(
	"go run ./bench/parentdeath -n 20 -idle 60s"
	"go run ./bench/exitnotice -n 30"
	"go run ./bench/containment -n 20 -children 50 -idle 60s"
	"go run ./bench/reapscan -extra 2000 -candidates 10 -runs 10"
	"go run ./bench/lifecycle -n 20 -grace 5s"
	"go run ./bench/handoff -n 20"
	"go run ./bench/sampler -children 100 -ticks 200"
	"go run ./bench/openhermes -n 20"
	"bench/idle/run.sh --duration 60"
	"bench/window/run.sh"
	"bench/window/run.sh --webkit40 build/bin/hermes-desktop-webkit40 --parts startup,memory"
	"go run ./bench/corebin -n 50"
	"go run ./bench/update -n 10 -size 256"
	"bench/wine/run.sh -n 20"
	"go run ./bench/remote -n 10 -faults 5 -old-rev 8e29df6"
	"go run ./bench/diagnose -runs 5"
)

{
	echo "# Benchmark results"
	echo
	echo "Measured $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) CPUs, $(uname -sr), $(go version | cut -d' ' -f3),"
	echo "commit $(git describe --always --dirty 2>/dev/null || echo unknown). Reproduce with \`make bench\`"
	echo "(or each command below). Every figure in one table comes from one run, side by side."
	echo "Timings on a shared 2-core machine are noisy: compare ratios within a table, not across runs."
} >"$tmp"

for b in "${benches[@]}"; do
	echo "== $b" >&2
	{
		echo
		echo "## \`$b\`"
		echo
		echo '```'
		$b
		echo '```'
	} >>"$tmp"
done
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out" >&2
