#!/usr/bin/env bash
# Installs the webkit41 packages in a real Debian 13 "trixie" system (a
# root filesystem from scripts/debian13-root.sh, entered with chroot), uses
# them there as a person would, and removes them again:
#
#   1. the webkit40 .deb is refused by apt with an unmet dependency
#      (libwebkit2gtk-4.0-37: trixie has no WebKitGTK 4.0), and the
#      webkit41 archive's install.sh, before WebKitGTK 4.1 is there, says
#      which library is missing and what to install, installing nothing;
#   2. `apt-get install ./<webkit41 .deb>` succeeds with trixie's own
#      packages (apt resolves every dependency: the names must exist there);
#      the app started from its menu entry (gtk-launch) under Xvfb with a
#      private D-Bus session: its backend gets ready, its window paints
#      (ARTIFACT_DIR/debian13-deb.png), its tray menu answers over D-Bus,
#      `hermes-desktop stop` quits leaving no process; `apt-get remove`
#      leaves no file of the package, and the user's state dir stays;
#   3. the webkit40 archive's install.sh, now that WebKitGTK 4.1 is there,
#      points at the webkit41 archive and installs nothing; the webkit41
#      archive's install.sh as an unprivileged user of that system, the app started from the menu entry it wrote, the same checks
#      (ARTIFACT_DIR/debian13-tar.png), then install.sh --uninstall leaves
#      the home as it was but for the app's state.
#
# The X server runs here (its socket directory is bound into the root);
# the session bus, the tray host (cmd/fakewatcher) and the app run inside.
# Every mount is made in a mount namespace of this script's own, so none
# outlives it, and the root is deleted from outside that namespace, where
# nothing is mounted in it. What cannot be checked in a chroot: a desktop
# session's own menu and tray (a stand-in tray host answers instead), a
# compositor, systemd (the app uses its process-tree containment there).
#
# usage: scripts/debian13-test.sh VERSION DIST ARTIFACT_DIR [CACHE]
set -euo pipefail
[ -n "${PKG_TEST_TRACE:-}" ] && set -x

readonly name=hermes-desktop
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/tagged.sh
. "$repo/scripts/tagged.sh"

fail() { echo "debian13-test: FAIL: $*" >&2; exit 1; }
say() { echo "debian13-test: $*"; }

# --- outside: the work dir, the namespace, the cleanup ---------------------------

if [ "${1:-}" != --inside ]; then
	[ "$(id -u)" -eq 0 ] || fail "needs root (chroot, mounts)"
	version=${1:?usage: debian13-test.sh VERSION DIST ARTIFACT_DIR [CACHE]}
	dist=$(realpath "${2:?usage: debian13-test.sh VERSION DIST ARTIFACT_DIR [CACHE]}")
	mkdir -p "${3:?usage: debian13-test.sh VERSION DIST ARTIFACT_DIR [CACHE]}"
	out=$(realpath "$3")
	cache=${4:-${DEBIAN13_CACHE:-/var/cache/hermes-desktop-test}}
	for t in unshare chroot Xvfb xdotool import identify; do
		command -v "$t" >/dev/null || fail "$t not found: run scripts/install-gui-deps.sh and scripts/install-package-deps.sh"
	done
	work=$(mktemp -d)
	tag=debian13-test-$$
	# The namespace's processes are gone (killed by tag if need be) before the
	# root is deleted; outside the namespace nothing is mounted in it, and
	# this checks so before deleting anything.
	cleanup() {
		local code=$?
		kill_tagged "$tag"
		kill_tagged "$tag-deb"
		kill_tagged "$tag-tar"
		if grep -qF " $work/" /proc/self/mountinfo; then
			echo "debian13-test: something is still mounted under $work: not deleting it" >&2
			code=1
		else
			rm -rf "$work"
		fi
		exit "$code"
	}
	trap cleanup EXIT
	HERMES_DESKTOP_TEST_TAG=$tag unshare --mount --propagation private -- \
		"$0" --inside "$version" "$dist" "$out" "$cache" "$work" "$tag"
	exit 0
fi

# --- inside the mount namespace ----------------------------------------------------

version=$2 dist=$3 out=$4 cache=$5 work=$6 tag=$7
root=$work/root
deb41=$dist/${name}_${version}_webkit41_amd64.deb
deb40=$dist/${name}_${version}_webkit40_amd64.deb
tgz41=$dist/${name}_${version}_linux_webkit41_amd64.tar.gz
tgz40=$dist/${name}_${version}_linux_webkit40_amd64.tar.gz
for f in "$deb41" "$deb40" "$tgz41" "$tgz40"; do
	[ -f "$f" ] || fail "$f is missing: make package"
done

readonly root_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# in_root runs a command inside the Debian 13 system as root, in a clean
# environment plus the NAME=VALUE words before it.
in_root() { chroot "$root" /usr/bin/env -i PATH="$root_path" HOME=/root LANG=C.UTF-8 "$@"; }

setup_root() {
	local started=$SECONDS
	mkdir "$root"
	"$repo/scripts/debian13-root.sh" "$cache" "$root" || fail "no Debian 13 root"
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	mount --rbind /sys "$root/sys"
	mkdir -p "$cache/debian13-apt/partial"
	# Downloaded packages are kept for the next run on this machine.
	mount --bind "$cache/debian13-apt" "$root/var/cache/apt/archives"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	in_root apt-get update -q >"$work/apt-update.out" 2>&1 || fail "apt-get update in Debian 13: $(tail -20 "$work/apt-update.out")"
	grep -q '^VERSION_CODENAME=trixie$' "$root/etc/os-release" || fail "the root is not trixie: $(cat "$root/etc/os-release")"
	# The packages, readable by apt's unprivileged downloader.
	mkdir -m 0755 "$root/pkgs"
	install -m 0644 "$deb41" "$deb40" "$tgz41" "$tgz40" "$root/pkgs/"
	# The stand-in tray host, a static build.
	(cd "$repo" && CGO_ENABLED=0 go build -o "$root/usr/local/bin/hd-fakewatcher" ./cmd/fakewatcher) || fail "build fakewatcher"
	say "ok: a Debian 13 system ($(. "$root/etc/os-release" && echo "$PRETTY_NAME"), kernel $(uname -r)) ready in $((SECONDS - started)) s"
}

# start_x starts the X server here; its socket directory is bound inside.
start_x() {
	Xvfb -displayfd 3 -screen 0 1280x860x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.out" 2>&1 &
	wait_until test -s "$work/display" || fail "Xvfb did not start: $(cat "$work/xvfb.out")"
	display=:$(cat "$work/display")
	mkdir -p "$root/tmp/.X11-unix"
	mount --bind /tmp/.X11-unix "$root/tmp/.X11-unix"
	say "Xvfb on $display"
}

window_visible() { DISPLAY=$display xdotool search --onlyvisible --name '^Hermes Desktop$' >/dev/null 2>&1; }

# screenshot takes the screen and checks that something painted: a blank
# or single-colour screen has a handful of colours, a window with text
# hundreds.
screenshot() { # $1: file
	local colours
	DISPLAY=$display import -window root "$1" || fail "screenshot $1"
	colours=$(identify -format '%k' "$1")
	[ "$colours" -ge 200 ] || fail "$1 has $colours colours: the window did not paint"
}

# --- 1. the wrong packages fail clearly ------------------------------------------

test_refusals() {
	local code=0 tgz=${tgz41##*/}
	in_root DEBIAN_FRONTEND=noninteractive apt-get install -y -q "/pkgs/${deb40##*/}" >"$work/apt40.out" 2>&1 || code=$?
	[ "$code" -ne 0 ] || fail "apt-get installed the webkit40 .deb in Debian 13"
	grep -q "Depends: libwebkit2gtk-4.0-37 but it is not installable" "$work/apt40.out" ||
		fail "apt refused the webkit40 .deb without naming libwebkit2gtk-4.0-37: $(tail -20 "$work/apt40.out")"
	in_root dpkg-query -W "$name" >/dev/null 2>&1 && fail "the webkit40 .deb is installed after apt refused it"
	say "ok: the webkit40 .deb is refused by apt: $(grep -o 'Depends: libwebkit2gtk-4.0-37 but it is not installable' "$work/apt40.out")"

	in_root useradd --create-home --shell /bin/bash hdtest || fail "useradd"
	user_ids=$(in_root id -u hdtest):$(in_root id -g hdtest) # global: as_user's
	as_user tar -C /home/hdtest -xzf "/pkgs/$tgz" || fail "unpack $tgz"
	code=0
	as_user "/home/hdtest/${tgz%.tar.gz}/install.sh" >"$work/install-early.out" 2>&1 || code=$?
	[ "$code" -ne 0 ] || fail "install.sh installed the webkit41 archive without WebKitGTK 4.1"
	grep -q "libwebkit2gtk-4.1.so.0" "$work/install-early.out" && grep -q "apt install libwebkit2gtk-4.1-0" "$work/install-early.out" ||
		fail "install.sh did not say what is missing and what to install: $(cat "$work/install-early.out")"
	[ ! -e "$root/home/hdtest/.local" ] || fail "the refused install.sh left $(find "$root/home/hdtest/.local")"
	say "ok: the webkit41 archive's install.sh, before WebKitGTK 4.1: $(head -1 "$work/install-early.out")"
}

# --- 2. the webkit41 .deb ----------------------------------------------------------

deb_files() { dpkg-deb -c "$deb41" | awk '$1 !~ /^d/ {sub(/^\./, "", $6); print $6}'; }

test_deb_install() {
	local started=$SECONDS f cores
	in_root DEBIAN_FRONTEND=noninteractive apt-get install -y -q "/pkgs/${deb41##*/}" >"$work/apt41.out" 2>&1 ||
		fail "apt-get install the webkit41 .deb in Debian 13: $(tail -30 "$work/apt41.out")"
	[ "$(in_root dpkg-query -W -f='${Status}' "$name")" = "install ok installed" ] || fail "deb: not installed"
	while IFS= read -r f; do
		[ -f "$root$f" ] || fail "deb: $f is not installed"
	done < <(deb_files)
	in_root "$name" version | grep -q "(WebKitGTK 4.1)$" || fail "deb: $(in_root "$name" version) is not the WebKitGTK 4.1 build"
	cores=$(in_root "$name" remote-cores --json 2>&1) || fail "deb: remote-cores: $cores"
	[[ $cores == *"\"dir\":\"/usr/lib/$name/cores\""* ]] || fail "deb: the cores were found elsewhere: $cores"
	say "ok: deb: apt-get install ./${deb41##*/} with trixie's packages ($(grep -c '^Setting up' "$work/apt41.out") packages set up, $((SECONDS - started)) s); $(in_root "$name" version)"
	# gtk-launch, which a menu uses to start a desktop file's Exec=.
	in_root DEBIAN_FRONTEND=noninteractive apt-get install -y -q libgtk-3-bin >"$work/apt-gtk.out" 2>&1 ||
		fail "apt-get install libgtk-3-bin: $(tail -20 "$work/apt-gtk.out")"
}

# session_env is the environment of one desktop session inside the root:
# the X server, a session bus of its own, a runtime dir, a throwaway state.
session_env() { # $1: home, $2: the app's tag
	echo "HOME=$1" "DISPLAY=$display" "XDG_RUNTIME_DIR=$1/.run" "HERMES_DESKTOP_STATE_DIR=$1/.hermes/desktop" \
		"HERMES_HOME=$1/.hermes" "DBUS_SESSION_BUS_ADDRESS=unix:path=$1/.run/bus" "HERMES_DESKTOP_TEST_TAG=$2"
}

# run_session starts a session bus and the tray host as RUNNER (in_root or
# as_user), the app from its menu entry, and checks it end to end: ready,
# painted, the tray answering, stopped with nothing left.
run_session() { # $1: what, $2: runner, $3: home, $4: the app's tag, $5: screenshot
	local what=$1 runner=$2 home=$3 app_tag=$4 shot=$5 envs item menu layout pid
	read -r -a envs <<<"$(session_env "$home" "$app_tag")"
	$runner mkdir -p -m 0700 "$home/.run"
	# The bus and the tray host carry the script's tag, not the app's: they
	# are this session's, not the app's leftovers.
	$runner "${envs[@]}" HERMES_DESKTOP_TEST_TAG="$tag" dbus-daemon --session --fork --address="unix:path=$home/.run/bus" ||
		fail "$what: dbus-daemon"
	$runner "${envs[@]}" HERMES_DESKTOP_TEST_TAG="$tag" hd-fakewatcher >"$work/$what-watcher.out" 2>&1 &
	WAIT_TRIES=20 wait_until grep -q . "$work/$what-watcher.out" || true

	$runner "${envs[@]}" gtk-launch "$name" >"$work/$what-launch.out" 2>&1 || fail "$what: gtk-launch: $(cat "$work/$what-launch.out")"
	WAIT_TRIES=120 wait_until status_ready "$runner" "$what" "${envs[@]}" ||
		fail "$what: the app never became ready: $(cat "$work/$what-status.json" 2>/dev/null)"
	grep -q '"mode":"gui"' "$work/$what-status.json" || fail "$what: not in GUI mode"
	pid=$(grep -o '"pid":[0-9]*' "$work/$what-status.json" | head -n1 | cut -d: -f2)
	wait_until window_visible || fail "$what: no visible window"
	sleep 2 # the page renders its first status
	screenshot "$shot"

	for _ in $(seq 1 50); do # the icon registers with the host asynchronously
		item=$(grep -o 'registered by :[0-9.]*' "$work/$what-watcher.out" | tail -1 | cut -d' ' -f3 || true)
		[ -n "$item" ] && break
		sleep 0.1
	done
	[ -n "$item" ] || fail "$what: the tray icon never registered: $(cat "$work/$what-watcher.out")"
	menu=$($runner "${envs[@]}" gdbus call --session --dest "$item" --object-path /StatusNotifierItem \
		--method org.freedesktop.DBus.Properties.Get org.kde.StatusNotifierItem Menu | grep -o "'/[^']*'" | tr -d "'" || true)
	[ -n "$menu" ] || fail "$what: the tray item has no menu"
	layout=$($runner "${envs[@]}" gdbus call --session --dest "$item" --object-path "$menu" \
		--method com.canonical.dbusmenu.GetLayout -- 0 -1 '["label"]' || true)
	echo "$layout" | grep -q "Backend ready on" || fail "$what: the tray menu does not say the backend is ready: $layout"
	say "ok: $what: the installed app is up in Debian 13 (pid $pid), ready, its window painted ($shot), its tray menu answers"

	$runner "${envs[@]}" "$name" stop >/dev/null || fail "$what: stop failed"
	expect_none_tagged "$app_tag" "$what"
	say "ok: $what: stop left nothing behind"
}

status_ready() { # $1: runner, $2: what, then the session's environment
	local runner=$1 what=$2
	shift 2
	$runner "$@" "$name" status --json >"$work/$what-status.json" 2>/dev/null && grep -q '"state":"ready"' "$work/$what-status.json"
}

test_deb_remove() {
	local f
	in_root DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "$name" >"$work/apt-remove.out" 2>&1 ||
		fail "apt-get remove: $(tail -20 "$work/apt-remove.out")"
	case $(in_root dpkg-query -W -f='${Status}' "$name" 2>/dev/null || true) in
	*" ok installed") fail "deb: still installed after apt-get remove" ;;
	esac
	while IFS= read -r f; do
		[ ! -e "$root$f" ] || fail "deb: $f is still there after apt-get remove"
	done < <(deb_files)
	[ ! -e "$root/usr/share/doc/$name" ] && [ ! -e "$root/usr/lib/$name" ] || fail "deb: its directories are still there after apt-get remove"
	[ -f "$root/root/deb/.hermes/desktop/launcher.lock" ] || fail "deb: the user's state dir did not survive apt-get remove"
	say "ok: deb: apt-get remove left no file of the package; the state dir stays"
}

# --- 3. the webkit41 archive, as a user ----------------------------------------------

as_user() { chroot --userspec="$user_ids" "$root" /usr/bin/env -i PATH="/home/hdtest/.local/bin:$root_path" HOME=/home/hdtest USER=hdtest LANG=C.UTF-8 "$@"; }

# home_listing prints every path in the user's home (with its type) but
# the app's state (~/.hermes), the session's runtime dir, caches and the
# window's web data (~/.local/share/hermes-desktop, which install.sh
# --uninstall leaves to the user, and so the directories holding it).
home_listing() {
	local keep='^\./(\.hermes|\.run|\.cache|\.local/share/hermes-desktop)(/|$)'
	[ -d "$root/home/hdtest/.local/share/hermes-desktop" ] && keep="$keep|^\./\.local(/share)?\$"
	(cd "$root/home/hdtest" && find . -mindepth 1 -printf '%y %p\n' | keep=$keep awk '$2 !~ ENVIRON["keep"]' | sort)
}

# test_wrong_archive: with WebKitGTK 4.1 installed, the webkit40 archive's
# install.sh points at the webkit41 one and installs nothing.
test_wrong_archive() {
	local top=${tgz40##*/} code=0
	top=${top%.tar.gz}
	as_user tar -C /home/hdtest -xzf "/pkgs/${tgz40##*/}" || fail "unpack ${tgz40##*/}"
	as_user "/home/hdtest/$top/install.sh" >"$work/install40.out" 2>&1 || code=$?
	[ "$code" -ne 0 ] || fail "install.sh installed the webkit40 archive in Debian 13"
	grep -q "take the ${name}_\*_linux_webkit41_amd64.tar.gz archive instead" "$work/install40.out" ||
		fail "the webkit40 archive's install.sh did not point at the webkit41 one: $(cat "$work/install40.out")"
	[ ! -e "$root/home/hdtest/.local" ] || fail "the refused install.sh left $(find "$root/home/hdtest/.local")"
	say "ok: the webkit40 archive's install.sh in Debian 13: $(grep -o 'This system has WebKitGTK 4.1.*' "$work/install40.out")"
}

test_tarball() {
	local top=${tgz41##*/} before
	top=${top%.tar.gz}
	test_wrong_archive
	before=$(home_listing)
	as_user "/home/hdtest/$top/install.sh" >"$work/install.out" 2>&1 || fail "tar: install.sh: $(cat "$work/install.out")"
	[ "$(cat "$root/home/hdtest/.local/lib/$name/install-type")" = portable ] || fail "tar: no portable install"
	as_user "$name" version | grep -q "(WebKitGTK 4.1)$" || fail "tar: $(as_user "$name" version) is not the WebKitGTK 4.1 build"
	say "ok: tar: $(head -1 "$work/install.out")"
	run_session tar as_user /home/hdtest "$tag-tar" "$out/debian13-tar.png"
	as_user "/home/hdtest/.local/lib/$name/install.sh" --uninstall >"$work/uninstall.out" 2>&1 || fail "tar: --uninstall: $(cat "$work/uninstall.out")"
	[ "$(home_listing)" = "$before" ] || fail "tar: --uninstall left: $(diff <(echo "$before") <(home_listing) | grep '^>' | tr '\n' ' ')"
	[ -d "$root/home/hdtest/.hermes/desktop" ] || fail "tar: --uninstall removed the state dir"
	say "ok: tar: install.sh --uninstall removed what it installed; ~/.hermes stays"
}

setup_root
start_x
test_refusals
test_deb_install
in_root mkdir -p /root/deb
run_session deb in_root /root/deb "$tag-deb" "$out/debian13-deb.png"
test_deb_remove
test_tarball
say "all Debian 13 tests passed ($version)"
