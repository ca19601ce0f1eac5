#!/usr/bin/env bash
# Builds the cores a remote backend runs on its host (backend/remotecore):
# this module without cgo for linux/amd64, linux/arm64, darwin/arm64 and
# darwin/amd64, stripped, each gzip'd as OUT/hermes-desktop-core-GOOS-GOARCH.gz
# (about 12 MB each, 5 MB gzip'd: what goes over SSH and onto the disk),
# the SHA-256 of each core itself in OUT/SHA256SUMS (`gunzip -k *.gz &&
# sha256sum -c SHA256SUMS` checks them: the remote computes the same) and
# the version in OUT/VERSION. They travel next to the app, not inside it
# (README "Remote backends (groundwork)"). A core that did not change is
# not rewritten.
#
# usage: scripts/remote-cores.sh OUT VERSION LDFLAGS   (the desktop build's
#        LDFLAGS, so that each core reports the same version)
set -euo pipefail

out=${1:?usage: remote-cores.sh OUT VERSION LDFLAGS}
version=${2:?usage: remote-cores.sh OUT VERSION LDFLAGS}
ldflags=${3-}
repo=$(cd "$(dirname "$0")/.." && pwd)
# The list backend/remotecore.Platforms holds, in the same order.
readonly platforms=(linux/amd64 linux/arm64 darwin/arm64 darwin/amd64)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$out"
# gzip'd by `release gzip` (Go's gzip at its best level): what an update's
# patch expands to see the few bytes a new release changed in a core, where
# GNU gzip's stream would differ from the first change on (backend/update/delta).
(cd "$repo" && go build -o "$tmp/release" ./cmd/release)
for p in "${platforms[@]}"; do
	goos=${p%/*} goarch=${p#*/}
	name=hermes-desktop-core-$goos-$goarch
	# -s -w: no symbol table or DWARF (panics still name functions).
	(cd "$repo" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
		-ldflags "$ldflags -s -w" -o "$tmp/$name" .)
	(cd "$tmp" && sha256sum "$name" >>"$tmp/SHA256SUMS")
	"$tmp/release" gzip "$tmp/$name" "$tmp/$name.gz"
	cmp -s "$tmp/$name.gz" "$out/$name.gz" || cp "$tmp/$name.gz" "$out/$name.gz"
done
printf '%s\n' "$version" >"$tmp/VERSION"
for f in SHA256SUMS VERSION; do
	cmp -s "$tmp/$f" "$out/$f" || cp "$tmp/$f" "$out/$f"
done
echo "remote cores ($version) in $out:"
while read -r sum name; do
	got=$(gzip -dc "$out/$name.gz" | sha256sum | cut -d' ' -f1)
	[ "$got" = "$sum" ] || { echo "remote-cores: $out/$name.gz unpacks to $got, want $sum" >&2; exit 1; }
	printf '  %s.gz %s bytes (%s unpacked)\n' "$name" "$(stat -c %s "$out/$name.gz")" "$(gzip -dc "$out/$name.gz" | wc -c)"
done <"$out/SHA256SUMS"
