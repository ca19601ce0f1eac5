#!/usr/bin/env bash
# Installs Hermes Desktop from this archive for the current user, without
# root, or removes what an earlier run installed. It refuses, saying what to
# install, when the system lacks a library the binary links (the WebKitGTK
# of the archive's flavour).
#
#   ~/.local/lib/hermes-desktop/hermes-desktop     the binary (self-updating)
#   ~/.local/lib/hermes-desktop/install-type       "portable": a self-managed install
#   ~/.local/lib/hermes-desktop/install.sh         this script, for --uninstall
#   ~/.local/lib/hermes-desktop/installed-files    what was installed (for --uninstall)
#   ~/.local/lib/hermes-desktop/LICENSE, THIRD_PARTY_LICENSES
#   ~/.local/lib/hermes-desktop/cores/             the remote cores (ssh hosts' backends)
#   ~/.local/lib/hermes-desktop/hermes-desktop.old/  the version a self-update replaced
#   ~/.local/bin/hermes-desktop                    a symlink to the binary
#   $XDG_DATA_HOME/applications/hermes-desktop.desktop   the menu entry (absolute Exec)
#   $XDG_DATA_HOME/icons/hicolor/*/apps/hermes-desktop.*  its icons
#
# ($XDG_DATA_HOME defaults to ~/.local/share.) The binary is not put in
# ~/.local/share/hermes-desktop: WebKitGTK keeps the window's web data there.
#
# Installing again upgrades in place; every file is replaced by a rename, so
# a running app keeps its old binary until it restarts. --uninstall asks a
# running app to stop, then removes exactly what the installs recorded, the
# directories they created if empty, and a start-at-login entry only if it
# starts the binary it removes, and what the app's self-update keeps beside
# the binary. It never touches the app's state (~/.hermes) or the window's
# web data.
#
# usage: install.sh [--uninstall]
set -euo pipefail

readonly name=hermes-desktop
readonly marker=portable

die() { echo "install.sh: $*" >&2; exit 1; }

case ${HOME:-} in
/*) ;;
*) die "HOME must be an absolute path" ;;
esac
case $HOME in
*[!A-Za-z0-9/._+@\ -]*) die "HOME ($HOME) has characters a menu entry cannot carry safely" ;;
esac
data_home=${XDG_DATA_HOME:-}
[ "${data_home#/}" != "$data_home" ] || data_home=$HOME/.local/share # the spec: relative is invalid
config_home=${XDG_CONFIG_HOME:-}
[ "${config_home#/}" != "$config_home" ] || config_home=$HOME/.config

readonly bin_dir=$HOME/.local/bin
readonly lib_dir=$HOME/.local/lib/$name
readonly apps_dir=$data_home/applications
readonly icons_dir=$data_home/icons/hicolor
readonly manifest=$lib_dir/installed-files
readonly app=$lib_dir/$name
readonly link=$bin_dir/$name
readonly desktop=$apps_dir/$name.desktop
readonly autostart=$config_home/autostart/$name.desktop

# Manifest lines: "d PATH" a directory this script created, "f PATH" a
# file, "l PATH" a symlink. Uninstall removes f and l entries, then d
# entries deepest first, each only if empty.
entries=()
record() { entries+=("$1 $2"); }

# --- install ------------------------------------------------------------------

# check_libraries refuses an archive whose binary cannot start here: the
# archives come in two WebKitGTK flavours (webkit41 for Debian 13, Ubuntu
# 24.04 and later, Fedora, Arch; webkit40 for Debian 12 and Ubuntu 22.04),
# and a missing library is said now, with what to install or which archive
# to take, rather than as the loader's error at the first start.
check_libraries() { # $1: the binary
	local missing ldconfig=ldconfig
	command -v ldd >/dev/null || return 0 # cannot tell here; the first start will
	missing=$(ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 == "not" {print $1}' | sort -u | paste -sd' ')
	[ -z "$missing" ] && return 0
	command -v "$ldconfig" >/dev/null || ldconfig=/sbin/ldconfig
	echo "install.sh: this archive's $name cannot start here: the system lacks $missing" >&2
	case " $missing " in
	*" libwebkit2gtk-4.0.so.37 "*)
		echo "This is the WebKitGTK 4.0 archive, for Debian 12 and Ubuntu 22.04." >&2
		if "$ldconfig" -p 2>/dev/null | grep -q 'libwebkit2gtk-4\.1\.so\.0 '; then
			echo "This system has WebKitGTK 4.1: take the ${name}_*_linux_webkit41_amd64.tar.gz archive instead." >&2
		else
			echo "Install it (sudo apt install libwebkit2gtk-4.0-37), or on a newer release take the webkit41 archive." >&2
		fi
		;;
	*" libwebkit2gtk-4.1.so.0 "*)
		echo "This is the WebKitGTK 4.1 archive. Install WebKitGTK 4.1 and run install.sh again:" >&2
		echo "  Debian, Ubuntu, Mint: sudo apt install libwebkit2gtk-4.1-0" >&2
		echo "  Fedora:               sudo dnf install webkit2gtk4.1" >&2
		echo "  Arch:                 sudo pacman -S webkit2gtk-4.1" >&2
		;;
	*) echo "Install them with your package manager and run install.sh again." >&2 ;;
	esac
	exit 1
}

# make_dir creates DIR and its missing parents, recording each one it creates.
make_dir() {
	local d=$1 missing=()
	while [ ! -d "$d" ]; do
		missing=("$d" "${missing[@]}")
		d=$(dirname "$d")
	done
	for d in "${missing[@]}"; do
		mkdir -m 0755 "$d"
		record d "$d"
	done
}

# put_file writes SRC to DST with MODE by a rename, so DST is never half
# written and a running binary keeps its own inode.
put_file() {
	local src=$1 dst=$2 mode=$3
	cp "$src" "$dst.new.$$"
	chmod "$mode" "$dst.new.$$"
	mv -f "$dst.new.$$" "$dst"
	record f "$dst"
}

# write_marker says, next to the binary, that this install manages itself:
# the app may replace its own binary (a package manager's it never touches).
write_marker() {
	printf '%s\n' "$marker" >"$lib_dir/install-type.new.$$"
	chmod 0644 "$lib_dir/install-type.new.$$"
	mv -f "$lib_dir/install-type.new.$$" "$lib_dir/install-type"
	record f "$lib_dir/install-type"
}

# check_conflicts refuses to replace a binary link or a menu entry that an
# install of ours did not create.
check_conflicts() {
	if [ -e "$link" ] || [ -L "$link" ]; then
		if [ ! -L "$link" ] || [ "$(readlink "$link")" != "$app" ]; then
			die "$link exists and is not this install's link; move it away first"
		fi
	fi
	if [ -e "$desktop" ] && ! grep -qx "X-Hermes-Desktop-Install=$marker" "$desktop"; then
		die "$desktop exists and is not this install's menu entry; move it away first"
	fi
}

# write_desktop writes the menu entry with the installed binary's absolute
# path (HOME was checked above: no character needs escaping, spaces quoted).
write_desktop() {
	local src=$1 exec=$app
	case $app in *' '*) exec="\"$app\"" ;; esac
	sed -e "s|^Exec=.*|Exec=$exec|" -e "/^TryExec=/d" "$src" >"$desktop.new.$$"
	sed -i -e "/^Exec=/i TryExec=$app" "$desktop.new.$$"
	echo "X-Hermes-Desktop-Install=$marker" >>"$desktop.new.$$"
	chmod 0644 "$desktop.new.$$"
	mv -f "$desktop.new.$$" "$desktop"
	record f "$desktop"
}

# install_cores puts the remote cores beside the binary, where the app
# looks for them; VERSION last, so a half-done upgrade is refused by the app
# (its version differs) rather than half used.
install_cores() {
	local src=$1 f
	[ -d "$src" ] || return 0
	make_dir "$lib_dir/cores"
	for f in "$src"/$name-core-*.gz "$src/SHA256SUMS" "$src/VERSION"; do
		[ -f "$f" ] || die "$f is missing: the archive's cores are incomplete"
		put_file "$f" "$lib_dir/cores/${f##*/}" 0644
	done
}

install_icons() {
	local src=$1 icon rel
	while IFS= read -r icon; do
		rel=${icon#"$src"/}
		make_dir "$icons_dir/$(dirname "$rel")"
		put_file "$icon" "$icons_dir/$rel" 0644
	done < <(find "$src" -type f -name "$name.*" | sort)
	# GTK rereads a theme whose directory is newer than its cache.
	touch "$icons_dir"
}

# write_manifest merges this run's entries with an earlier install's, so an
# upgrade still removes what an older version installed.
write_manifest() {
	[ -d "$lib_dir" ] || return 0
	{
		[ -f "$manifest" ] && cat "$manifest"
		[ ${#entries[@]} -gt 0 ] && printf '%s\n' "${entries[@]}"
	} | awk '!seen[$0]++' >"$manifest.new.$$"
	mv -f "$manifest.new.$$" "$manifest"
}

do_install() {
	local src f
	src=$(cd "$(dirname "$0")" && pwd)
	for f in "$name" "$name.desktop" icons/hicolor; do
		[ -e "$src/$f" ] || die "$src/$f is missing: run the install.sh of an unpacked archive"
	done
	check_libraries "$src/$name"
	check_conflicts
	# Whatever happens from here, the manifest names what exists, so
	# --uninstall can clean up after a failed install too.
	trap 'write_manifest; rm -f "$lib_dir"/*.new.$$ "$link.new.$$" "$desktop.new.$$" 2>/dev/null || true' EXIT

	make_dir "$lib_dir"
	put_file "$src/$name" "$app" 0755
	write_marker
	put_file "$src/install.sh" "$lib_dir/install.sh" 0755
	for f in LICENSE THIRD_PARTY_LICENSES; do
		if [ -f "$src/$f" ]; then
			put_file "$src/$f" "$lib_dir/$f" 0644
		fi
	done
	install_cores "$src/cores"

	make_dir "$bin_dir"
	ln -sfn "$app" "$link.new.$$"
	mv -Tf "$link.new.$$" "$link"
	record l "$link"

	make_dir "$apps_dir"
	write_desktop "$src/$name.desktop"
	install_icons "$src/icons/hicolor"

	echo "installed $("$app" version 2>/dev/null || echo "$name") in $lib_dir"
	case ":$PATH:" in
	*":$bin_dir:"*) ;;
	*) echo "note: $bin_dir is not on your PATH; the menu entry works regardless" ;;
	esac
	echo "uninstall: $lib_dir/install.sh --uninstall"
}

# --- uninstall ----------------------------------------------------------------

# remove_update_leftovers removes what the app's self-update keeps beside
# the binary (backend/update): the previous version in $name.old/, an
# interrupted update's staging, failed version and journal, and cores/
# whole (an update replaces it whole, with names no manifest recorded).
remove_update_leftovers() {
	local p
	for p in "$lib_dir/cores" "$lib_dir/$name.old" "$lib_dir/.update-journal" \
		"$lib_dir/.$name.update-"* "$lib_dir/$name.failed-"* "$lib_dir/$name.old.del-"*; do
		if [ -e "$p" ] && owned_path "$p"; then
			rm -rf -- "$p"
		fi
	done
}

# stop_app asks a running instance (on the default state dir, or
# $HERMES_DESKTOP_STATE_DIR) to stop; `stop` returns once its backends are
# gone, and exits 3 when nothing runs.
stop_app() {
	[ -x "$app" ] || return 0
	local code=0
	"$app" stop --timeout 60s >/dev/null 2>&1 || code=$?
	case $code in
	0) echo "stopped the running app" ;;
	3) ;;
	*) echo "warning: could not stop the running app (exit $code); removing its files anyway" >&2 ;;
	esac
}

# remove_autostart removes the app's start-at-login entry if it starts the
# binary being removed: afterwards it would start nothing at every login.
remove_autostart() {
	[ -f "$autostart" ] || return 0
	if grep -qxF "Exec=\"$app\"" "$autostart"; then
		rm -f "$autostart"
		echo "removed $autostart"
	fi
}

# owned_path guards every removal: a manifest names paths under HOME or the
# XDG directories only, and none that climbs out of them.
owned_path() {
	case $1 in
	*/../* | */..) return 1 ;;
	"$HOME"/* | "$data_home"/* | "$config_home"/*) return 0 ;;
	*) return 1 ;;
	esac
}

remove_entry() { # $1: kind, $2: path
	if ! owned_path "$2"; then
		echo "skipping $2: outside $HOME" >&2
	elif [ "$1" = f ] && [ -f "$2" ] && [ ! -L "$2" ]; then
		rm -f "$2"
	elif [ "$1" = l ] && [ -L "$2" ]; then
		rm -f "$2"
	fi
}

do_uninstall() {
	if [ ! -f "$manifest" ]; then
		echo "nothing to uninstall: no $manifest"
		return 0
	fi
	stop_app
	remove_autostart
	local kind path dirs
	while read -r kind path; do
		remove_entry "$kind" "$path"
	done <"$manifest"
	remove_update_leftovers
	# Deepest first: a reverse sort puts every directory before its parent.
	mapfile -t dirs < <(sed -n 's/^d //p' "$manifest" | sort -r)
	rm -f "$manifest"
	for path in "${dirs[@]}"; do
		if owned_path "$path"; then
			rmdir "$path" 2>/dev/null || true # not empty: someone else's files are in it
		fi
	done
	echo "uninstalled $name; its state (${HERMES_HOME:-$HOME/.hermes}) and the window's web data"
	echo "($data_home/$name, ${XDG_CACHE_HOME:-$HOME/.cache}/$name) are yours to keep or delete"
}

case "${1:-}" in
"") do_install ;;
--uninstall) do_uninstall ;;
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' ;;
*) die "unknown argument $1 (usage: install.sh [--uninstall])" ;;
esac
