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
#   4. the end-to-end tests that drive that exe from Linux, so they can
#      SIGKILL its Wine processes and count them in /proc (e2e, ^TestWine);
#      the remote-host ones run a real sshd (scripts/install-ssh-test-deps.sh,
#      which `make test-windows` runs first) and give the exe an ssh.exe of
#      their own (internal/sshbridge).
#
# usage: scripts/wine/test-windows.sh [PACKAGES...]   (default ./... and the e2e)
# Env: WINE_E2E=REGEX runs those end-to-end tests (default: all of them
# without PACKAGES, none with), WINE_E2E=none none; KEEP_PREFIX=1 keeps the
# prefix (its path is printed) for a look.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=scripts/wine
started=$(date +%s%N)

"$here/../install-windows-test-deps.sh" >/dev/null

work=$(mktemp -d /tmp/hermes-wine-lane.XXXXXX)
. "$here/prefix.sh"

cleanup() {
	wine_prefix_end
	if [ "${KEEP_PREFIX:-}" = 1 ]; then
		echo "test-windows: prefix kept in $WINEPREFIX"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

wine_prefix "$work/prefix"
echo "test-windows: prefix $WINEPREFIX"
overlay=$("$here/deleteat-overlay.sh" "$work/overlay")

export GOOS=windows GOARCH=amd64 CGO_ENABLED=0
exe=$work/bin/hermes-desktop.exe
go build -o "$exe" .
export HERMES_DESKTOP_TEST_EXE=$(win_path "$exe")

pkgs=("$@")
e2e=${WINE_E2E:-}
if [ ${#pkgs[@]} -eq 0 ]; then
	pkgs=(./...)
	e2e=${e2e:-^TestWine}
fi
status=0
go test -overlay "$overlay" -exec "$PWD/$here/exec.sh" -count=1 -timeout 15m "${pkgs[@]}" || status=$?

if [ -n "$e2e" ] && [ "$e2e" != none ]; then
	echo "test-windows: end to end ($e2e), driven from Linux"
	e2e_status=0
	HERMES_DESKTOP_WINE_EXE=$exe GOOS= GOARCH= CGO_ENABLED=1 \
		go test -count=1 -timeout 15m -v -run "$e2e" ./e2e >"$work/e2e.log" 2>&1 || e2e_status=$?
	# -v for the figures the tests log; the rest of -v's chatter left out.
	grep -vE '^=== (PAUSE|CONT)' "$work/e2e.log" || true
	[ $e2e_status = 0 ] || status=1
fi

ms=$((($(date +%s%N) - started) / 1000000))
printf 'test-windows: lane took %d.%01d s\n' $((ms / 1000)) $((ms % 1000 / 100))
exit $status
