#!/usr/bin/env bash
# The Windows test lane (`make test-windows`, part of `make test`): the
# project's Windows test binaries, and the Windows end-to-end tests, run
# under Debian's Wine 8 in a throwaway prefix.
#
#   1. a fresh prefix, reporting Windows 10 (NSIS' amd64 stub wants it);
#   2. bcryptprimitives.dll (ProcessPrng) built from bcryptprimitives.c into
#      its system32: Go >= 1.24's runtime needs it at start, Wine 8 has none;
#   3. every package's Windows tests, built with the Deleteat overlay
#      (deleteat-overlay.sh) and run through exec.sh; the tests get a
#      prebuilt hermes-desktop.exe in HERMES_DESKTOP_TEST_EXE, since there
#      is no Go toolchain inside the prefix to build one;
#   4. the end-to-end tests that drive that exe from Linux (e2e, -run Wine).
#
# usage: scripts/wine/test-windows.sh [PACKAGES...]   (default ./...)
# Env: KEEP_PREFIX=1 keeps the prefix (its path is printed) for a look.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=scripts/wine
started=$(date +%s%N)

"$here/../install-windows-test-deps.sh" >/dev/null

work=$(mktemp -d /tmp/hermes-wine-lane.XXXXXX)
export WINEPREFIX=$work/prefix
export WINEDEBUG=-all            # Wine's fixme chatter buries the test output
export WINEDLLOVERRIDES='mscoree,mshtml=' # no Mono or Gecko install prompts
export WINEARCH=win64
unset DISPLAY WAYLAND_DISPLAY    # nothing here needs a window; keeps Wine off X
wine=/usr/lib/wine/wine64        # wine's launcher script nags about wine32

cleanup() {
	wineserver -k 2>/dev/null || true # ends whatever the tests left in the prefix
	wineserver -w 2>/dev/null || true
	if [ "${KEEP_PREFIX:-}" = 1 ]; then
		echo "test-windows: prefix kept in $WINEPREFIX"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

echo "test-windows: prefix $WINEPREFIX"
"$wine" wineboot -i >/dev/null 2>&1
"$wine" winecfg -v win10 >/dev/null 2>&1
x86_64-w64-mingw32-gcc -shared -O2 -s -Wall -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
	"$here/bcryptprimitives.c" -ladvapi32
overlay=$("$here/deleteat-overlay.sh" "$work/overlay")

export GOOS=windows GOARCH=amd64 CGO_ENABLED=0
exe=$work/bin/hermes-desktop.exe
go build -o "$exe" .
export HERMES_DESKTOP_TEST_EXE="Z:${exe//\//\\}"

pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)
status=0
go test -overlay "$overlay" -exec "$PWD/$here/exec.sh" -count=1 -timeout 15m "${pkgs[@]}" || status=$?

ms=$((($(date +%s%N) - started) / 1000000))
printf 'test-windows: lane took %d.%01d s\n' $((ms / 1000)) $((ms % 1000 / 100))
exit $status
