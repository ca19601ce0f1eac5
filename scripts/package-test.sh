#!/usr/bin/env bash
# Installs the packages of `make package` for real, uses them, and removes
# them again (needs root, or sudo: dpkg, useradd, chroot). On this machine
# (Debian 12) the webkit40 flavour's, as its users would; in a Debian 13
# system the webkit41 flavour's (4.):
#
#   1. the webkit40 .deb: dpkg -i (apt-get -f install for missing dependencies);
#      `hermes-desktop remote-cores` finds the remote cores in
#      /usr/lib/hermes-desktop/cores; the app started from its menu entry
#      (gtk-launch, which runs the installed desktop file's Exec=) under
#      Xvfb and a private D-Bus session, with a throwaway HOME and state
#      dir; its window on screen (ARTIFACT_DIR/deb-installed.png);
#      `hermes-desktop stop --state-dir` leaves no process behind; dpkg -r
#      removes every file and keeps the user's state dir.
#   2. the webkit40 portable archive, as a throwaway unprivileged user: install.sh
#      (twice: upgrades are the same step), the remote cores found beside
#      the installed binary, `run --headless` from ~/.local until ready,
#      `stop`, then `install.sh --uninstall` leaves the home as it was
#      except for the app's state (~/.hermes).
#   3. the Windows files: the installer is a 64-bit NSIS installer (its
#      header) and the executable a PE32+ GUI program, the installer
#      carries that very executable and the archive's remote cores, and,
#      under Wine, it installs silently, the installed app finds its cores
#      and runs, an upgrade over the running app stops it and replaces it,
#      and the uninstaller removes it all (scripts/wine/installer-test.sh).
#   4. in a Debian 13 root (debootstrap, cached in $DEBIAN13_CACHE): the
#      webkit40 .deb refused by apt, the webkit41 .deb installed by apt from
#      trixie's packages and its archive by install.sh, each run in its
#      window, stopped, removed (scripts/debian13-test.sh).
#
# A hermes-desktop package that is already installed is never replaced: the
# test refuses to start. Whatever happens, what it installed, the user it
# created and the processes it started are gone when it exits.
#
# usage: scripts/package-test.sh VERSION DIST ARTIFACT_DIR
set -euo pipefail
[ -n "${PKG_TEST_TRACE:-}" ] && set -x

readonly name=hermes-desktop
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/tagged.sh
. "$repo/scripts/tagged.sh"

fail() { echo "package-test: FAIL: $*" >&2; exit 1; }
say() { echo "package-test: $*"; }

# status_ready says whether the instance on $HERMES_DESKTOP_STATE_DIR has a
# ready backend, leaving its status in FILE.
status_ready() { "/usr/bin/$name" status --json >"$1" 2>/dev/null && grep -q '"state":"ready"' "$1"; }

# The platforms every package carries a remote core for (scripts/remote-cores.sh).
readonly core_platforms=(linux/amd64 linux/arm64 darwin/arm64 darwin/amd64)

# check_cores_json checks `remote-cores --json` output: the directory the
# app found its cores in, and every platform.
check_cores_json() { # $1: what, $2: the JSON, $3: the directory it must name
	local p
	[[ $2 == *"\"dir\":\"$3\""* ]] || fail "$1: remote-cores found its cores elsewhere than $3: $2"
	for p in "${core_platforms[@]}"; do
		[[ $2 == *"\"$p\""* ]] || fail "$1: remote-cores lists no core for $p: $2"
	done
}

window_visible() { xdotool search --onlyvisible --name '^Hermes Desktop$' >/dev/null 2>&1; }

# --- 1, inside xvfb-run + dbus-run-session: the installed app's window ------------

deb_session() { # $1: work dir, $2: artifact dir, $3: the tag the app carries
	local work=$1 out=$2 pid exe
	export HOME=$work/deb/home HERMES_HOME=$work/deb/home/.hermes
	export HERMES_DESKTOP_STATE_DIR=$work/deb/state
	unset XDG_DATA_HOME XDG_CONFIG_HOME XDG_DATA_DIRS HERMES_DESKTOP_HEADLESS
	mkdir -p "$HOME"
	# Only the app carries the tag, not this script's own helpers.
	tag=$3 # global: the EXIT trap reads it
	trap 'kill_tagged "$tag"' EXIT

	# As a menu starts it: gtk-launch finds hermes-desktop.desktop in the
	# XDG data dirs and runs its Exec= line.
	HERMES_DESKTOP_TEST_TAG=$tag gtk-launch "$name" >"$work/deb/launch.out" 2>&1 || fail "deb: gtk-launch: $(cat "$work/deb/launch.out")"
	WAIT_TRIES=120 wait_until status_ready "$work/deb/status.json" || fail "deb: the app never became ready: $(cat "$work/deb/status.json" 2>/dev/null)"
	grep -q '"mode":"gui"' "$work/deb/status.json" || fail "deb: not in GUI mode"
	pid=$(grep -o '"pid":[0-9]*' "$work/deb/status.json" | head -n1 | cut -d: -f2)
	exe=$(readlink "/proc/$pid/exe" || true)
	[ "$exe" = "/usr/bin/$name" ] || fail "deb: the app runs $exe, not /usr/bin/$name"
	wait_until window_visible || fail "deb: no visible window"
	sleep 2 # the page renders its first status
	import -window root "$out/deb-installed.png"
	say "deb: the installed app is up (pid $pid, $exe); screenshot in $out/deb-installed.png"

	"/usr/bin/$name" stop --state-dir "$HERMES_DESKTOP_STATE_DIR" >/dev/null || fail "deb: stop failed"
	expect_none_tagged "$tag" "deb"
	say "deb: ok: stop left nothing behind"
}

# Root installs packages and creates users; anyone else goes through sudo.
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || fail "needs root, or sudo (dpkg -i, useradd)"
	exec sudo "$0" "$@"
fi

if [ "${1:-}" = --deb-session ]; then
	deb_session "$2" "$3" "$4"
	exit 0
fi

# --- setup ----------------------------------------------------------------------

version=${1:?usage: package-test.sh VERSION DIST ARTIFACT_DIR}
dist=$(realpath "${2:?usage: package-test.sh VERSION DIST ARTIFACT_DIR}")
mkdir -p "${3:?usage: package-test.sh VERSION DIST ARTIFACT_DIR}"
out=$(realpath "$3")
deb=$dist/${name}_${version}_webkit40_amd64.deb
tgz=$dist/${name}_${version}_linux_webkit40_amd64.tar.gz
exe=$dist/${name}_${version}_windows_amd64.exe
setup=$dist/${name}_${version}_windows_amd64-setup.exe
deb41=$dist/${name}_${version}_webkit41_amd64.deb
tgz41=$dist/${name}_${version}_linux_webkit41_amd64.tar.gz

for f in "$deb" "$tgz" "$deb41" "$tgz41" "$exe" "$setup" "$dist/SHA256SUMS"; do
	[ -f "$f" ] || fail "$f is missing: make package"
done

work=$(mktemp -d)
chmod 0711 "$work" # the throwaway user reaches its home inside
deb_installed=
user=
deb_tag=pkg-test-deb-$$
tar_tag=pkg-test-tar-$$

# Whatever happens, nothing this script installed, created or started
# outlives it; it only touches its own package, user and tagged processes.
cleanup() {
	local code=$?
	kill_tagged "$deb_tag"
	kill_tagged "$tar_tag"
	if [ -n "$deb_installed" ] && dpkg-query -W "$name" >/dev/null 2>&1; then
		dpkg -r "$name" >/dev/null 2>&1 || true
	fi
	if [ -n "$user" ] && id "$user" >/dev/null 2>&1; then
		userdel "$user" 2>/dev/null || true
	fi
	rm -rf "$work"
	exit "$code"
}
trap cleanup EXIT

# --- 0. checksums ----------------------------------------------------------------

(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match"
for f in "$deb" "$tgz" "$deb41" "$tgz41" "$exe" "$setup"; do
	grep -q " ${f##*/}\$" "$dist/SHA256SUMS" || fail "SHA256SUMS does not list ${f##*/}"
done
# Each flavour's .deb depends on its own WebKitGTK, never the other's.
check_depends() { # $1: .deb, $2: its WebKitGTK package, $3: the other's
	local depends f
	depends=$(dpkg-deb -f "$1" Depends)
	for f in libgtk-3-0 "$2"; do
		[[ ", $depends," == *", $f"[\ ,]* ]] || fail "${1##*/}: Depends ($depends) lacks $f"
	done
	[[ $depends != *"$3"* ]] || fail "${1##*/}: Depends ($depends) names $3"
}
check_depends "$deb" libwebkit2gtk-4.0-37 libwebkit2gtk-4.1
check_depends "$deb41" libwebkit2gtk-4.1-0 libwebkit2gtk-4.0
say "ok: SHA256SUMS"

# --- 3. Windows (first: it is quick) ----------------------------------------------

test_windows() {
	local kind f p
	# The archive's cores, to compare the installer's with.
	mkdir -p "$work/tar-cores"
	tar -C "$work/tar-cores" --strip-components=1 -xzf "$tgz" --wildcards '*/cores/*' || fail "windows: no cores in $tgz"
	# file(1) names only the x86 stub "Nullsoft Installer"; the amd64 one is a
	# PE32+ program carrying NSIS' own header signature.
	kind=$(file -b "$setup")
	[[ $kind == "PE32+ executable (GUI) x86-64"* ]] || fail "windows: $setup is not a 64-bit Windows program: $kind"
	grep -qaF NullsoftInst "$setup" || fail "windows: $setup carries no NSIS header"
	kind=$(file -b "$exe")
	[[ $kind == "PE32+ executable (GUI) x86-64"* ]] || fail "windows: $exe is not a PE32+ GUI executable: $kind"
	mkdir "$work/nsis"
	7z x -y -o"$work/nsis" "$setup" >/dev/null || fail "windows: 7z cannot read $setup"
	for f in "$name.exe" LICENSE.txt THIRD_PARTY_LICENSES.txt uninstall.exe cores/SHA256SUMS cores/VERSION; do
		[ -f "$work/nsis/$f" ] || fail "windows: the installer has no $f"
	done
	for p in "${core_platforms[@]}"; do
		f=cores/$name-core-${p/\//-}.gz
		[ -f "$work/nsis/$f" ] || fail "windows: the installer has no $f"
		cmp -s "$work/nsis/$f" "$work/tar-cores/$f" || fail "windows: the installer's $f differs from the archive's"
	done
	cmp -s "$work/nsis/$name.exe" "$exe" || fail "windows: the installer carries another $name.exe"
	# RequestExecutionLevel user: the manifests ask Windows for no elevation.
	for f in "$setup" "$work/nsis/uninstall.exe"; do
		# (grep without -q: an early exit would fail strings with SIGPIPE under pipefail)
		strings "$f" | grep -F 'requestedExecutionLevel level="asInvoker"' >/dev/null ||
			fail "windows: ${f##*/} asks for elevation (no asInvoker manifest)"
	done
	say "ok: windows: a per-user (asInvoker) Nullsoft installer carrying the PE32+ GUI executable and the remote cores"
	"$repo/scripts/install-windows-test-deps.sh" >/dev/null
	"$repo/scripts/wine/installer-test.sh" "$setup" "$exe" "$version" || fail "windows: the installer's round trip under Wine"
}

# --- 1. the .deb -------------------------------------------------------------------

# deb_files lists the package's files (dirs excluded) as dpkg-deb sees them.
deb_files() { dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {sub(/^\./, "", $6); print $6}'; }

test_deb_install() {
	local f status
	status=$(dpkg-query -W -f='${Status}' "$name" 2>/dev/null || true)
	case $status in
	"" | *" not-installed" | *" config-files") ;;
	*) fail "deb: $name is already on this machine ($status); remove it first: the test would replace it" ;;
	esac
	[ ! -e "/usr/bin/$name" ] || fail "deb: /usr/bin/$name exists; remove it first: the test would replace it"
	deb_installed=1
	if ! dpkg -i "$deb" >"$work/dpkg.out" 2>&1; then
		# Missing dependencies leave it unpacked; apt brings them and configures it.
		DEBIAN_FRONTEND=noninteractive apt-get install -f -y -q >>"$work/dpkg.out" 2>&1 ||
			fail "deb: install: $(tail -20 "$work/dpkg.out")"
	fi
	[ "$(dpkg-query -W -f='${Status}' "$name")" = "install ok installed" ] || fail "deb: not installed after dpkg -i"
	while IFS= read -r f; do
		[ -f "$f" ] || fail "deb: $f is not installed"
	done < <(deb_files)
	for f in /usr/bin/$name /usr/share/applications/$name.desktop /usr/share/doc/$name/copyright \
		/usr/share/doc/$name/LICENSE /usr/share/icons/hicolor/48x48/apps/$name.png; do
		[ -f "$f" ] || fail "deb: $f is missing"
	done
	desktop-file-validate /usr/share/applications/$name.desktop || fail "deb: the desktop file does not validate"
	local cores
	cores=$(env -u HERMES_DESKTOP_CORES "/usr/bin/$name" remote-cores --json 2>&1) || fail "deb: remote-cores: $cores"
	check_cores_json deb "$cores" "/usr/lib/$name/cores"
	say "ok: deb: dpkg -i installed $(dpkg-query -W -f='${Version}' "$name") ($(deb_files | wc -l) files); the remote cores found in /usr/lib/$name/cores"
}

test_deb_remove() {
	local f state=$work/deb/state
	dpkg -r "$name" >"$work/dpkg.out" 2>&1 || fail "deb: dpkg -r: $(cat "$work/dpkg.out")"
	deb_installed=
	case $(dpkg-query -W -f='${Status}' "$name" 2>/dev/null || true) in
	*" ok installed") fail "deb: still installed after dpkg -r" ;;
	esac
	while IFS= read -r f; do
		[ ! -e "$f" ] || fail "deb: $f is still there after dpkg -r"
	done < <(deb_files)
	[ ! -e "/usr/share/doc/$name" ] || fail "deb: /usr/share/doc/$name is still there after dpkg -r"
	[ -f "$state/launcher.lock" ] || fail "deb: the user's state dir $state did not survive dpkg -r"
	say "ok: deb: dpkg -r removed every file; the state dir stays"
}

test_deb() {
	test_deb_install
	mkdir -p "$work/deb"
	# Xvfb and the session bus die with the session; the tag is set inside it,
	# so neither counts as the app's leftover.
	env -u DBUS_SESSION_BUS_ADDRESS -u HERMES_DESKTOP_TEST_TAG \
		xvfb-run -a -s '-screen 0 1280x860x24' dbus-run-session -- \
		"$0" --deb-session "$work" "$out" "$deb_tag" || fail "deb: the installed app's session failed"
	test_deb_remove
}

# --- 2. the portable archive ----------------------------------------------------------

# user_argv runs what follows as the throwaway user, in a clean login-like
# environment whose PATH starts with ~/.local/bin (an array, not a function,
# so that `"${user_argv[@]}" CMD &` makes $! the command's own PID).
user_argv=()
app_pid=
as_user() { "${user_argv[@]}" "$@"; }

# home_listing prints every path in the user's home (with its type), the
# app's state dir excluded.
home_listing() { (cd "$home" && find . -mindepth 1 -printf '%y %p\n' | awk '$2 !~ /^\.\/\.hermes(\/|$)/' | sort); }

check_portable_install() {
	local lib=$home/.local/lib/$name desktop=$home/.local/share/applications/$name.desktop
	[ -x "$lib/$name" ] || fail "tar: no $lib/$name"
	[ -f "$lib/cores/SHA256SUMS" ] && [ -f "$lib/cores/VERSION" ] || fail "tar: no remote cores in $lib/cores"
	[ "$(cat "$lib/install-type")" = portable ] || fail "tar: install-type is not 'portable'"
	[ "$(readlink "$home/.local/bin/$name")" = "$lib/$name" ] || fail "tar: ~/.local/bin/$name does not link to $lib/$name"
	desktop-file-validate "$desktop" || fail "tar: $desktop does not validate"
	grep -qx "Exec=$lib/$name" "$desktop" || fail "tar: $desktop: Exec= is not $lib/$name"
	[ "$(find "$home/.local/share/icons/hicolor" -name "$name.*" | wc -l)" -ge 10 ] || fail "tar: icons missing"
	[ -z "$(find "$home" ! -user "$user")" ] || fail "tar: files in the home not owned by $user: $(find "$home" ! -user "$user")"
}

# start_portable starts the installed app headless as the user, from PATH
# (~/.local/bin), and waits until its backend is ready; its PID in $app_pid.
start_portable() {
	# Emptied here, not by the child's redirection: that one may come after
	# the wait below has read an earlier run's "ready".
	: >"$work/tar-run.out"
	"${user_argv[@]}" "$name" run --headless >>"$work/tar-run.out" 2>&1 &
	app_pid=$!
	WAIT_TRIES=120 wait_until grep -q ' ready ' "$work/tar-run.out" || fail "tar: never ready: $(tail -20 "$work/tar-run.out")"
	[ "$(readlink "/proc/$app_pid/exe")" = "$home/.local/lib/$name/$name" ] ||
		fail "tar: the app runs $(readlink "/proc/$app_pid/exe"), not the installed binary"
}

# expect_portable_exit waits for the app and checks that nothing is left.
expect_portable_exit() { # $1: what stopped it
	local code=0
	wait "$app_pid" || code=$?
	[ "$code" -eq 0 ] || fail "tar: after $1, run exited with $code: $(tail -20 "$work/tar-run.out")"
	expect_none_tagged "$tar_tag" "tar: $1"
}

run_portable() {
	start_portable
	as_user "$name" status >/dev/null || fail "tar: status failed"
	as_user "$name" stop >/dev/null || fail "tar: stop failed"
	expect_portable_exit stop
	say "ok: tar: ran from ~/.local as $user until ready, stopped, nothing left behind"
}

test_tarball() {
	local top before lib
	user=hdpkgtest$$
	home=$work/home
	useradd --no-create-home --home-dir "$home" --shell /bin/sh --user-group "$user" || fail "tar: useradd"
	user_argv=(setpriv --reuid="$user" --regid="$user" --init-groups --
		env -i HOME="$home" USER="$user" LOGNAME="$user" SHELL=/bin/sh LANG=C.UTF-8
		PATH="$home/.local/bin:/usr/local/bin:/usr/bin:/bin" HERMES_DESKTOP_TEST_TAG="$tar_tag")
	mkdir -m 0700 "$home" "$work/unpack"
	cp "$tgz" "$work/unpack/" # the user may not reach DIST (a checkout in /root)
	chown -R "$user:" "$home" "$work/unpack"
	top=$(basename "$tgz" .tar.gz)
	as_user tar -C "$work/unpack" -xzf "$work/unpack/${tgz##*/}" || fail "tar: $user cannot unpack $tgz"
	before=$(home_listing)

	as_user "$work/unpack/$top/install.sh" >"$work/install.out" 2>&1 || fail "tar: install.sh: $(cat "$work/install.out")"
	check_portable_install
	lib=$home/.local/lib/$name
	local first
	first=$(home_listing)
	as_user "$work/unpack/$top/install.sh" >"$work/install.out" 2>&1 || fail "tar: install.sh again: $(cat "$work/install.out")"
	[ "$(home_listing)" = "$first" ] || fail "tar: a second install.sh changed what is installed"
	check_portable_install
	local cores
	cores=$(as_user "$name" remote-cores --json 2>&1) || fail "tar: remote-cores: $cores"
	check_cores_json tar "$cores" "$lib/cores"
	say "ok: tar: install.sh as $user (twice) into ~/.local; the remote cores found in $lib/cores"

	run_portable

	# --uninstall stops a running app first; the app's start-at-login entry
	# for this binary goes with it.
	start_portable
	as_user mkdir -p "$home/.config/autostart"
	printf '[Desktop Entry]\nType=Application\nName=Hermes Desktop\nExec="%s"\n' "$lib/$name" |
		as_user tee "$home/.config/autostart/$name.desktop" >/dev/null
	as_user "$lib/install.sh" --uninstall >"$work/uninstall.out" 2>&1 || fail "tar: --uninstall: $(cat "$work/uninstall.out")"
	expect_portable_exit "install.sh --uninstall"
	grep -q "stopped the running app" "$work/uninstall.out" || fail "tar: --uninstall did not say it stopped the app"
	[ ! -e "$home/.config/autostart/$name.desktop" ] || fail "tar: --uninstall kept the autostart entry"
	as_user rmdir "$home/.config/autostart" "$home/.config"
	[ "$(home_listing)" = "$before" ] || fail "tar: --uninstall left: $(diff <(echo "$before") <(home_listing) | grep '^>' | tr '\n' ' ')"
	[ -d "$home/.hermes/desktop" ] || fail "tar: --uninstall removed the state dir"
	pgrep -u "$user" >/dev/null && fail "tar: processes of $user remain: $(pgrep -u "$user" | paste -sd' ')"
	local strays
	strays=$(find /tmp /var/tmp /dev/shm -path "$work" -prune -o -user "$user" -print 2>/dev/null || true)
	[ -z "$strays" ] || fail "tar: $user left files outside its home: $strays"
	userdel "$user" || fail "tar: userdel"
	user=
	say "ok: tar: install.sh --uninstall removed what it installed; ~/.hermes stays"
}

test_windows
test_deb
test_tarball
"$repo/scripts/debian13-test.sh" "$version" "$dist" "$out" "${DEBIAN13_CACHE:-/var/cache/hermes-desktop-test}" || fail "the Debian 13 tests"
say "all package tests passed ($version)"
