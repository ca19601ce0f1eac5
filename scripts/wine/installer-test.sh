#!/usr/bin/env bash
# The Windows installer's round trip under Wine, in a throwaway prefix
# (scripts/wine/prefix.sh), as a user would go through it:
#
#   1. setup.exe /S installs into %LOCALAPPDATA%\Programs\Hermes Desktop:
#      the very exe of the build, the licenses, install-type "nsis-user",
#      uninstall.exe, the remote cores in cores\, the Start-menu
#      shortcut, and the "Installed apps" entry
#      (HKCU ...\Uninstall\hermes-desktop) with every value;
#   2. the installed app finds its remote cores (`remote-cores --json`)
#      and runs (`version --json`, then `run --headless` with its default
#      state dir until its backend is ready, `status` over the control
#      pipe);
#   3. setup.exe /S again while it runs: the installer asks the app to stop
#      (`hermes-desktop.exe stop`), the app exits 0 with nothing left, and
#      the files and entry are in place again;
#   4. uninstall.exe /S removes every file it installed and what the app's
#      self-update keeps beside them (hermes-desktop.exe.old\, the leftovers
#      of an interrupted update), the shortcut, the entry and the folder,
#      and keeps the user's state (%USERPROFILE%\.hermes).
#
# usage: scripts/wine/installer-test.sh SETUP_EXE APP_EXE VERSION
set -euo pipefail

setup=$(realpath "${1:?usage: installer-test.sh SETUP_EXE APP_EXE VERSION}")
app_exe=$(realpath "${2:?}")
version=${3:?}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/wine/prefix.sh
. "$here/prefix.sh"
# shellcheck source=scripts/tagged.sh
. "$here/../tagged.sh"

fail() { echo "installer-test: FAIL: $*" >&2; exit 1; }
say() { echo "installer-test: $*"; }

work=$(mktemp -d /tmp/hermes-installer-test.XXXXXX)
tag=installer$$
app_pid=
cleanup() {
	kill_tagged "$tag"
	[ -z "$app_pid" ] || wait "$app_pid" 2>/dev/null || true
	wine_prefix_end
	rm -rf "$work"
}
trap cleanup EXIT

wine_prefix "$work/prefix"
user_dir=$WINEPREFIX/drive_c/users/$(id -un)
[ -d "$user_dir" ] || user_dir=$(find "$WINEPREFIX/drive_c/users" -mindepth 1 -maxdepth 1 -type d ! -name Public | head -1)
inst=$user_dir/AppData/Local/Programs/Hermes\ Desktop
shortcut=$user_dir/AppData/Roaming/Microsoft/Windows/Start\ Menu/Programs/Hermes\ Desktop.lnk
key='HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\hermes-desktop'
installed_files=(hermes-desktop.exe LICENSE.txt THIRD_PARTY_LICENSES.txt install-type uninstall.exe
	cores/SHA256SUMS cores/VERSION cores/hermes-desktop-core-{linux-amd64,linux-arm64,darwin-arm64,darwin-amd64}.gz)

# reg_value prints one value of the uninstall entry, or nothing. A value
# just written may not be readable by the next reg process at once (one
# run in a few dozen read DisplayName as empty right after setup.exe, then
# read it fine): an empty answer is asked again, for up to 5 s.
reg_value() { # $1: value name
	local v i
	for i in $(seq 1 20); do
		v=$("$WINE" reg query "$key" /v "$1" 2>/dev/null | tr -d '\r' | awk -v n="$1" '$1 == n { $1 = ""; $2 = ""; sub(/^  */, ""); print }')
		[ -n "$v" ] && break
		sleep 0.25
	done
	printf '%s\n' "$v"
}

# as_app runs the installed exe (untagged: a CLI call, not the app).
as_app() { "$WINE" "$(win_path "$inst/hermes-desktop.exe")" "$@"; }

install() { # $1: what this install is
	env -u HERMES_DESKTOP_TEST_TAG "$WINE" "$(win_path "$setup")" /S || fail "$1: setup.exe /S exited with $?"
	for f in "${installed_files[@]}"; do
		[ -f "$inst/$f" ] || fail "$1: $f is not installed"
	done
	cmp -s "$inst/hermes-desktop.exe" "$app_exe" || fail "$1: the installed exe is not the build's"
	[ "$(tr -d '\r\n' <"$inst/install-type")" = nsis-user ] || fail "$1: install-type is not nsis-user"
	[ -f "$shortcut" ] || fail "$1: no Start-menu shortcut"
	local want_dir
	want_dir='C:\users\'${user_dir##*/}'\AppData\Local\Programs\Hermes Desktop'
	[ "$(reg_value DisplayName)" = "Hermes Desktop" ] || fail "$1: DisplayName is '$(reg_value DisplayName)'"
	[ "$(reg_value DisplayVersion)" = "$version" ] || fail "$1: DisplayVersion is '$(reg_value DisplayVersion)', want $version"
	[ "$(reg_value InstallLocation)" = "$want_dir" ] || fail "$1: InstallLocation is '$(reg_value InstallLocation)'"
	[ "$(reg_value DisplayIcon)" = "$want_dir\\hermes-desktop.exe" ] || fail "$1: DisplayIcon is '$(reg_value DisplayIcon)'"
	[ "$(reg_value UninstallString)" = "\"$want_dir\\uninstall.exe\"" ] || fail "$1: UninstallString is '$(reg_value UninstallString)'"
	[ "$(reg_value QuietUninstallString)" = "\"$want_dir\\uninstall.exe\" /S" ] || fail "$1: QuietUninstallString is '$(reg_value QuietUninstallString)'"
	[ "$(reg_value NoModify)" = 0x1 ] && [ "$(reg_value NoRepair)" = 0x1 ] || fail "$1: NoModify/NoRepair are not 1"
	[ -n "$(reg_value EstimatedSize)" ] || fail "$1: no EstimatedSize"
	say "ok: $1: files, shortcut and the Installed-apps entry (DisplayVersion $version)"
}

status_ready() { as_app status --json 2>/dev/null | grep -q '"state":"ready"'; }

# 1, 2: install, run
install "install"
got=$(as_app version --json | tr -d '\r')
[[ $got =~ ^\{\"version\":\"[^\"]+\"\}$ ]] || fail "version --json printed: $got"
got=$(env -u HERMES_DESKTOP_CORES "$WINE" "$(win_path "$inst/hermes-desktop.exe")" remote-cores --json | tr -d '\r') || fail "remote-cores: $got"
# JSON doubles the backslashes: ...\\Programs\\Hermes Desktop\\cores
[[ $got == *'\\Programs\\Hermes Desktop\\cores"'* ]] || fail "remote-cores found its cores elsewhere than the install's cores folder: $got"
for p in linux/amd64 linux/arm64 darwin/arm64 darwin/amd64; do
	[[ $got == *"\"$p\""* ]] || fail "remote-cores lists no core for $p: $got"
done
say "ok: the installed app finds its remote cores in its cores folder"
HERMES_DESKTOP_TEST_TAG=$tag "$WINE" "$(win_path "$inst/hermes-desktop.exe")" run --headless >"$work/run.out" 2>&1 &
app_pid=$!
WAIT_TRIES=120 wait_until status_ready || fail "the installed app never got ready: $(tail -20 "$work/run.out")"
say "ok: the installed app runs: its backend is ready, status answers over the control pipe"

# 3: the upgrade over the running app stops it first
install "upgrade over the running app"
code=0
wait "$app_pid" || code=$?
app_pid=
[ $code -eq 0 ] || fail "upgrade: the app exited with $code: $(tail -20 "$work/run.out")"
WAIT_TRIES=20 wait_until test -z "$(tagged_pids "$tag")" || fail "upgrade: processes left: $(tagged_pids "$tag")"
say "ok: upgrade: the installer stopped the running app (exit 0, nothing left) and replaced it"

# 4: uninstall (the NSIS uninstaller reruns itself from %TEMP% and returns at once),
# after what self-updates leave: the previous version, a staged one, a failed one
[ -d "$user_dir/.hermes" ] || fail "no state dir $user_dir/.hermes after a run"
mkdir -p "$inst/hermes-desktop.exe.old/cores" "$inst/.hermes-desktop.exe.update-123/cores" "$inst/hermes-desktop.exe.failed-0a1b2c"
cp "$inst/hermes-desktop.exe" "$inst/hermes-desktop.exe.old/"
cp "$inst/cores/VERSION" "$inst/hermes-desktop.exe.old/cores/"
touch "$inst/.hermes-desktop.exe.update-123/cores/VERSION" "$inst/hermes-desktop.exe.failed-0a1b2c/hermes-desktop.exe" "$inst/.update-journal"
env -u HERMES_DESKTOP_TEST_TAG "$WINE" "$(win_path "$inst/uninstall.exe")" /S || fail "uninstall.exe /S exited with $?"
WAIT_TRIES=60 wait_until test ! -e "$inst" || fail "uninstall: $inst is still there: $(ls -A "$inst")"
[ ! -e "$shortcut" ] || fail "uninstall: the shortcut is still there"
! "$WINE" reg query "$key" >/dev/null 2>&1 || fail "uninstall: $key is still there"
[ -d "$user_dir/.hermes" ] || fail "uninstall: the user's state dir went too"
say "ok: uninstall: every file, the shortcut, the entry and the folder gone; the user's state kept"
