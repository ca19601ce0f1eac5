#!/usr/bin/env bash
# GUI smoke test of the desktop build, under Xvfb and a private D-Bus
# session (both die with the test). Each scenario starts the app with no
# arguments, as a double click would, with its own state dir, and checks
# that every process it started is gone at the end:
#   1. ready + screenshot, the window has its icon, a second launch exits 0
#      without spawning, `stop`
#   2. SIGTERM quits (Wails would otherwise route it through OnBeforeClose)
#   3. the close button quits when there is no tray to come back from
#   4. with a tray host: close hides the window and says so in a desktop
#      notification, a second launch shows it again, the tray's Open Hermes
#      starts the opener without the switch the app sets for its own WebKit
#      (whose web process has it), and the tray's Quit item quits
#
# usage: scripts/gui-smoke.sh BINARY ARTIFACT_DIR
set -euo pipefail
[ -n "${GUI_SMOKE_TRACE:-}" ] && set -x

bin=$(realpath "${1:?usage: gui-smoke.sh BINARY ARTIFACT_DIR}")
out=${2:?usage: gui-smoke.sh BINARY ARTIFACT_DIR}
mkdir -p "$out"
out=$(realpath "$out")
repo=$(cd "$(dirname "$0")/.." && pwd)

if [ "${GUI_SMOKE_INNER:-}" != 1 ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	# The fake tray host is built before Xvfb starts.
	(cd "$repo" && go build -o "$work/fakewatcher" ./cmd/fakewatcher)
	export GUI_SMOKE_INNER=1 GUI_SMOKE_WORK=$work
	unset HERMES_DESKTOP_HEADLESS DBUS_SESSION_BUS_ADDRESS
	# Not exec: the EXIT trap above removes $work when the session ends.
	xvfb-run -a -s '-screen 0 1280x860x24' dbus-run-session -- "$0" "$bin" "$out"
	exit 0
fi

work=$GUI_SMOKE_WORK
watcher=
app=
# Whatever happens, nothing this script started outlives it.
cleanup() {
	[ -n "$watcher" ] && kill "$watcher" 2>/dev/null
	[ -n "$app" ] && kill -9 "$app" 2>/dev/null
	return 0
}
trap cleanup EXIT
fail() { echo "gui-smoke: FAIL: $*" >&2; [ -f "$work/app.err" ] && tail -20 "$work/app.err" >&2; exit 1; }

# Every process the app starts inherits the scenario's tag (scripts/tagged.sh).
# shellcheck source=scripts/tagged.sh
. "$repo/scripts/tagged.sh"
tagged() { tagged_pids "$HERMES_DESKTOP_TEST_TAG"; }

start_app() { # $1: scenario name
	export HERMES_DESKTOP_TEST_TAG=gui-smoke-$1-$$
	export HERMES_DESKTOP_STATE_DIR=$work/$1/state HERMES_HOME=$work/$1/home
	mkdir -p "$HERMES_HOME"
	"$bin" >"$work/app.out" 2>"$work/app.err" &
	app=$!
	for _ in $(seq 1 120); do
		"$bin" status --json 2>/dev/null | grep -q '"state":"ready"' && break
		kill -0 "$app" 2>/dev/null || fail "$1: the app exited early"
		sleep 0.5
	done
	"$bin" status --json >"$work/status.json" 2>/dev/null || fail "$1: no status"
	grep -q '"state":"ready"' "$work/status.json" || fail "$1: backend not ready"
	grep -q '"mode":"gui"' "$work/status.json" || fail "$1: not in GUI mode"
	backend_pid=$(grep -o '"pid":[0-9]*' "$work/status.json" | sed -n 2p | cut -d: -f2 || true)
	sleep 2 # the page renders its first status
}

window_visible() { xdotool search --onlyvisible --name '^Hermes Desktop$' >/dev/null 2>&1; }

expect_exit() { # $1: scenario; waits for the app and checks that nothing is left
	local code=0
	for _ in $(seq 1 60); do kill -0 "$app" 2>/dev/null || break; sleep 0.25; done
	kill -0 "$app" 2>/dev/null && fail "$1: the app is still running"
	wait "$app" || code=$?
	app=
	[ "$code" -eq 0 ] || fail "$1: the app exited with $code"
	sleep 0.3
	left=$(tagged)
	if [ -n "$left" ]; then
		ps -o pid=,args= -p "$(echo $left | tr ' ' ,)" >&2 || true
		kill -9 $left 2>/dev/null || true
		fail "$1: processes left behind: $left"
	fi
	echo "gui-smoke: ok: $1"
}

# from_core PID: PID runs the core this build carries (backend/corebin),
# not this GTK-linked binary, whose every start costs some 80 ms of CPU.
from_core() {
	local exe
	exe=$(readlink "/proc/$1/exe") || fail "main: no process $1"
	case $exe in
	"$HERMES_DESKTOP_STATE_DIR"/core/hermes-desktop-core-*) ;;
	*) fail "main: process $1 runs $exe, not the core under $HERMES_DESKTOP_STATE_DIR/core" ;;
	esac
}

# 1. Ready, screenshot, second launch, stop over the control socket.
start_app main
window_visible || fail "main: no visible window"
# The built-in backend and its watchdog shim.
from_core "$backend_pid"
from_core "$(ps -o ppid= -p "$backend_pid" | tr -d ' ')"
import -window root "$out/gui.png"
# The window has its icon: _NET_WM_ICON starts with the width and height.
wid=$(xdotool search --onlyvisible --name '^Hermes Desktop$' | head -1)
icon=$(xprop -id "$wid" -f _NET_WM_ICON 32c _NET_WM_ICON | cut -c1-40)
[[ $icon =~ ^_NET_WM_ICON\(CARDINAL\)\ =\ [1-9][0-9]*,\ [1-9] ]] || fail "main: the window has no icon: $icon"
cp "$work/status.json" "$out/gui-status.json"
"$bin" >"$work/second.out" 2>&1 || fail "main: the second launch exited non-zero"
grep -q "already running" "$work/second.out" || fail "main: the second launch did not say so"
"$bin" status --json | grep -q "\"pid\":$backend_pid," || fail "main: the backend changed after the second launch"
"$bin" stop >/dev/null
expect_exit main

# 2. SIGTERM quits, with full teardown.
start_app sigterm
kill -TERM "$app"
expect_exit sigterm

# 3. No tray host: the close button quits.
start_app close
python3 "$repo/scripts/wm-close.py" 'Hermes Desktop' || fail "close: no window to close"
expect_exit close

# 4. A tray host: close hides, a second launch shows, the tray quits.
"$work/fakewatcher" >"$work/watcher.out" 2>&1 &
watcher=$!
for _ in $(seq 1 40); do grep -q ready "$work/watcher.out" && break; sleep 0.1; done
# A stand-in for xdg-open that writes down the environment it was given.
mkdir -p "$work/fakebin"
printf '#!/bin/sh\nenv >"%s.tmp" && mv "%s.tmp" "%s"\n' "$work/opener.env" "$work/opener.env" "$work/opener.env" >"$work/fakebin/xdg-open"
chmod +x "$work/fakebin/xdg-open"
PATH=$work/fakebin:$PATH start_app tray
# The window's web process runs with WebKit's memory polling off
# (desktop.QuietWebView): it started while the app had the switch set.
webkit=$(pgrep -P "$app" WebKitWebProces | head -1 || true)
[ -n "$webkit" ] || fail "tray: no WebKit web process under the app"
# Captured first: under pipefail, grep -q leaving early would fail tr.
webkit_env=$(tr '\0' '\n' <"/proc/$webkit/environ")
grep -qx 'WEBKIT_DISABLE_MEMORY_PRESSURE_MONITOR=1' <<<"$webkit_env" ||
	fail "tray: the web process runs with WebKit's memory polling on"
python3 "$repo/scripts/wm-close.py" 'Hermes Desktop' || fail "tray: no window to close"
sleep 1
window_visible && fail "tray: the window did not hide"
# The first close to the tray says, in a desktop notification, that the
# app still runs.
grep -q "notification from Hermes Desktop: Hermes Desktop is still running" "$work/watcher.out" ||
	fail "tray: no notification that the app still runs: $(cat "$work/watcher.out")"
kill -0 "$app" 2>/dev/null || fail "tray: closing the window quit the app"
"$bin" status --json | grep -q "\"pid\":$backend_pid," || fail "tray: the backend did not survive hiding the window"
"$bin" >/dev/null 2>&1 || fail "tray: the second launch exited non-zero"
sleep 1
window_visible || fail "tray: a second launch did not bring the window back"
import -window root "$out/gui-tray.png"
# Click the tray menu's Quit item the way a tray host does (dbusmenu Event).
item=
for _ in $(seq 1 50); do # the icon registers with the host asynchronously
	item=$(grep -o 'registered by :[0-9.]*' "$work/watcher.out" | tail -1 | cut -d' ' -f3 || true)
	[ -n "$item" ] && break
	sleep 0.1
done
[ -n "$item" ] || fail "tray: the tray icon never registered"
# The item's Menu property names its dbusmenu object, as a tray host reads it.
menu=$(gdbus call --session --dest "$item" --object-path /StatusNotifierItem \
	--method org.freedesktop.DBus.Properties.Get org.kde.StatusNotifierItem Menu | grep -o "'/[^']*'" | tr -d "'" || true)
[ -n "$menu" ] || fail "tray: the tray item has no menu"
layout=$(gdbus call --session --dest "$item" --object-path "$menu" \
	--method com.canonical.dbusmenu.GetLayout -- 0 -1 '["label"]' || true)
echo "$layout" | grep -q "Backend ready on" || fail "tray: the status line does not say the backend is ready: $layout"
# Open Hermes: the opener it starts must not inherit the app's WebKit switch.
open_id=$(echo "$layout" | grep -o "<([0-9]*, {[^}]*'label': <'Open Hermes'>" | grep -o '^<([0-9]*' | tr -d '<(' || true)
[ -n "$open_id" ] || fail "tray: no Open Hermes item in the tray menu: $layout"
gdbus call --session --dest "$item" --object-path "$menu" \
	--method com.canonical.dbusmenu.Event -- "$open_id" clicked '<"">' 0 >/dev/null
for _ in $(seq 1 40); do [ -f "$work/opener.env" ] && break; sleep 0.25; done
[ -f "$work/opener.env" ] || fail "tray: Open Hermes started no opener"
grep -q '^HERMES_DESKTOP_HELPER=' "$work/opener.env" || fail "tray: the opener is not marked as the app's helper"
grep -q '^WEBKIT_DISABLE_MEMORY_PRESSURE_MONITOR=' "$work/opener.env" &&
	fail "tray: the opener inherited the switch the app set for its own WebKit"
quit_id=$(echo "$layout" | grep -o "<([0-9]*, {[^}]*'label': <'Quit'>" | grep -o '^<([0-9]*' | tr -d '<(' || true)
[ -n "$quit_id" ] || fail "tray: no Quit item in the tray menu: $layout"
gdbus call --session --dest "$item" --object-path "$menu" \
	--method com.canonical.dbusmenu.Event -- "$quit_id" clicked '<"">' 0 >/dev/null
expect_exit tray

echo "gui-smoke: all scenarios passed; screenshots in $out"
