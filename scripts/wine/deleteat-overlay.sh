#!/usr/bin/env bash
# Writes a `go test -overlay` file into DIR that lets Go's
# internal/syscall/windows.Deleteat fall back on STATUS_NOT_IMPLEMENTED,
# which is what Wine 8 answers for FileDispositionInformationEx: without
# it every os.RemoveAll (and so every t.TempDir cleanup) fails under Wine.
# Test lane only: the shipped binaries are built without it.
#
# It refuses when Go's source is not the one this patch was written for:
# a new Go may already handle it, or patch differently. Check the new
# at_windows.go by hand, then add its digest below.
#
# usage: scripts/wine/deleteat-overlay.sh DIR   (prints DIR/overlay.json)
set -euo pipefail

dir=${1:?usage: deleteat-overlay.sh DIR}
goroot=$(go env GOROOT)
src=$goroot/src/internal/syscall/windows/at_windows.go

# sha256 of at_windows.go in the Go releases this patch is known to fit.
known=(
	5db22eb10af67ca789f5afad63478cc9aa64d3a8abec20abd00413ae3b70fe2f # go1.26.8
)
sum=$(sha256sum "$src" | cut -d' ' -f1)
ok=no
for k in "${known[@]}"; do [ "$sum" = "$k" ] && ok=yes; done
if [ $ok != yes ]; then
	echo "deleteat-overlay: $src (sha256 $sum) is not a version this patch was written for ($(go version));" >&2
	echo "read its Deleteat and add the digest to scripts/wine/deleteat-overlay.sh if the patch still fits" >&2
	exit 1
fi

anchor='		STATUS_NOT_SUPPORTED:     // the file system'
[ "$(grep -cF "$anchor" "$src")" = 1 ] || { echo "deleteat-overlay: anchor not found once in $src" >&2; exit 1; }
mkdir -p "$dir"
awk -v anchor="$anchor" '
	index($0, anchor) == 1 {
		print "\t\tNTStatus(0xC0000002), // STATUS_NOT_IMPLEMENTED: Wine 8 lacks FileDispositionInformationEx (test lane overlay)"
	}
	{ print }
' "$src" >"$dir/at_windows.go"
printf '{"Replace":{"%s":"%s"}}\n' "$src" "$dir/at_windows.go" >"$dir/overlay.json"
echo "$dir/overlay.json"
