# Sourced by the scripts that run Windows binaries under Wine (the test
# lane, the installer's round trip): wine_prefix DIR makes DIR a fresh
# 64-bit prefix that reports Windows 10, with this lane's
# bcryptprimitives.dll in its system32, one persistent wineserver, and
# Wine's own services already up, so none of them is a child of a test.
# It exports WINEPREFIX and the variables below; wine_prefix_end stops
# everything that runs in it.

export WINEDEBUG=-all                     # Wine's fixme chatter buries the output
export WINEDLLOVERRIDES='mscoree,mshtml=' # no Mono or Gecko install prompts
export WINEARCH=win64
WINE=/usr/lib/wine/wine64                 # wine's launcher script nags about wine32
WINE_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

wine_prefix() { # $1: a directory that does not exist yet
	export WINEPREFIX=$1
	unset DISPLAY WAYLAND_DISPLAY # nothing here needs a window; keeps Wine off X
	"$WINE" wineboot -i >/dev/null 2>&1
	"$WINE" winecfg -v win10 >/dev/null 2>&1 # NSIS' amd64 stub checks for Windows 10
	x86_64-w64-mingw32-gcc -shared -O2 -s -Wall \
		-o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
		"$WINE_SCRIPTS/bcryptprimitives.c" -ladvapi32
	wineserver -k 2>/dev/null || true
	wineserver -w
	wineserver -p
	"$WINE" cmd /c exit >/dev/null 2>&1
}

wine_prefix_end() {
	wineserver -k 2>/dev/null || true # ends whatever is still running in the prefix
	wineserver -w 2>/dev/null || true
}

# win_path prints the Windows name (drive Z: is /) of an absolute Linux path.
win_path() { local p=$1; echo "Z:${p//\//\\}"; }
