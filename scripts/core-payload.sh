#!/usr/bin/env bash
# Builds the core that the Linux desktop build carries (backend/corebin):
# this module built without cgo, so that the watchdog shim and the built-in
# backend do not load GTK and WebKitGTK at every start. Writes it gzip'd,
# with its SHA-256, into backend/corebin/payload/, where the desktop
# build's //go:embed picks it up. Rewrites them only when they change, so a
# rebuild with nothing new relinks nothing.
#
# usage: scripts/core-payload.sh LDFLAGS   (the desktop build's, so that the
#        core reports the same version)
set -euo pipefail

ldflags=${1-}
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$repo/backend/corebin/payload
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# -s -w: no symbol table or DWARF (panics still name functions); 6 MB
# instead of 9, gzip'd to about 3.
(cd "$repo" && CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags "$ldflags -s -w" -o "$tmp/core" .)
# gzip'd by `release gzip`, as the remote cores (scripts/remote-cores.sh):
# an update's patch expands it inside the executable.
(cd "$repo" && go build -o "$tmp/release" ./cmd/release)
"$tmp/release" gzip "$tmp/core" "$tmp/hermes-desktop-core.gz"
sha256sum "$tmp/core" | cut -d' ' -f1 >"$tmp/hermes-desktop-core.sha256"
for f in hermes-desktop-core.gz hermes-desktop-core.sha256; do
	cmp -s "$tmp/$f" "$out/$f" || cp "$tmp/$f" "$out/$f"
done
echo "core payload: $(cat "$out/hermes-desktop-core.sha256") ($(stat -c %s "$out/hermes-desktop-core.gz") bytes gzip'd)"
