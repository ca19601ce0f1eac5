#!/usr/bin/env bash
# User journeys in the real window (issue 23), under Xvfb and a private
# D-Bus session, as gui-smoke.sh runs the app. Each journey starts the app
# with no arguments and its own state dir, clicks and types as a person
# would (xdotool), finding each button by its accessible name in the tree
# WebKitGTK exposes over AT-SPI (scripts/gui-a11y.py), not by its pixels;
# then it checks the screen (that tree, and a screenshot in ARTIFACT_DIR)
# and the engine (status --json, config.json):
#   1. custom: a Custom backend added in the form becomes ready
#   2. settings: a Settings save after an add and a remove keeps both, across
#      a relaunch (issue 23, item 1)
#   3. failed: a backend that exits at once and one that never says ready
#      end Failed with Try again, which starts them afresh (item 3)
#   4. zombies: three shim crashes, Open log folder x5 and Open Hermes x5
#      leave no zombie under the app or a shim 5 s on (item 4)
#   5. stop: Stop clears the card's PID, port and address (item 8)
#   6. remote: a backend on another host added in the form (Host: an alias
#      of the journey's ssh config for a real sshd on loopback) becomes
#      ready and connected over one authentication; after a failed
#      handoff it is ready again over the same connection, its page answers
#      and one tray icon is left (issue 31, item 2); quit leaves nothing
#      there (issue 25)
#   7. restart: after an add and a remove, Settings' Restart Hermes Desktop
#      hands over to a new instance in charge within 10 s with the new list
#      and one tray icon (issue 31, item 1); the Logs page's Save a
#      diagnostic report... says where it went, and the zip holds no secret
#
# usage: scripts/gui-journeys.sh BINARY ARTIFACT_DIR
# GUI_JOURNEYS="2 5" runs only those; GUI_JOURNEYS_TRACE=1 traces.
set -euo pipefail
[ -n "${GUI_JOURNEYS_TRACE:-}" ] && set -x

bin=$(realpath "${1:?usage: gui-journeys.sh BINARY ARTIFACT_DIR}")
out=${2:?usage: gui-journeys.sh BINARY ARTIFACT_DIR}
mkdir -p "$out"
out=$(realpath "$out")
repo=$(cd "$(dirname "$0")/.." && pwd)

if [ "${GUI_JOURNEYS_INNER:-}" != 1 ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	export GUI_JOURNEYS_INNER=1 GUI_JOURNEYS_WORK=$work
	unset HERMES_DESKTOP_HEADLESS DBUS_SESSION_BUS_ADDRESS
	# The accessibility bus of this session only (at-spi-bus-launcher
	# starts on demand inside it and ends with it).
	unset NO_AT_BRIDGE
	# Not exec: the EXIT trap above removes $work when the session ends.
	xvfb-run -a -s '-screen 0 1280x860x24' dbus-run-session -- "$0" "$bin" "$out"
	exit 0
fi

work=$GUI_JOURNEYS_WORK
app=
sshd=
watcher=
# Whatever happens, nothing this script started outlives it.
cleanup() {
	[ -n "$app" ] && kill -9 "$app" 2>/dev/null
	[ -n "$sshd" ] && kill "$sshd" 2>/dev/null
	[ -n "$watcher" ] && kill "$watcher" 2>/dev/null
	return 0
}
trap cleanup EXIT

journey=
fail() {
	echo "gui-journeys: FAIL: $journey: $*" >&2
	if [ -n "$app" ]; then
		import -window root "$out/journey-$journey-fail.png" 2>/dev/null || true
		a11y dump >"$out/journey-$journey-fail-tree.txt" 2>&1 || true
		"$bin" status --json >"$out/journey-$journey-fail-status.json" 2>/dev/null || true
		echo "gui-journeys: screenshot, accessibility tree and status in $out/journey-$journey-fail*" >&2
	fi
	[ -f "$work/app.err" ] && tail -20 "$work/app.err" >&2
	exit 1
}

# The system python: python3-gi and the Atspi typelib are Debian packages.
a11y() { GUI_A11Y_TIMEOUT=${A11Y_TIMEOUT:-20} /usr/bin/python3 "$repo/scripts/gui-a11y.py" "$@"; }
click() { a11y click "$@" || fail "no $* to click"; }

# shellcheck source=scripts/tagged.sh
. "$repo/scripts/tagged.sh"

# The built-in backend under a short name on the app's PATH, so a journey
# types a command a person could: the core this build carries
# (backend/corebin), found once the first app has unpacked it.
mkdir -p "$work/bin"
# Stands in for xdg-open as a browser that hands off to a running
# instance does: it forks a child and exits at once; the child exits soon
# after, reparented to the app (a child subreaper), which must reap it.
cat >"$work/bin/xdg-open" <<EOF
#!/bin/sh
echo "\$1" >>"$work/opened"
/bin/sh -c 'sleep 0.2' &
exit 0
EOF
chmod +x "$work/bin/xdg-open"
export PATH=$work/bin:$PATH

# start_app NAME [CONFIG_JSON]: a fresh state dir (or NAME's, on a
# relaunch, when CONFIG_JSON is "keep"), the window up and on the
# accessibility bus.
start_app() {
	export HERMES_DESKTOP_TEST_TAG=gui-journeys-$1-$$
	export HERMES_DESKTOP_STATE_DIR=$work/$1/state HERMES_HOME=$work/$1/home
	if [ "${2:-}" != keep ]; then
		rm -rf "${work:?}/$1"
		mkdir -p "$HERMES_HOME" "$HERMES_DESKTOP_STATE_DIR"
		chmod 700 "$HERMES_DESKTOP_STATE_DIR"
		[ -n "${2:-}" ] && printf '%s\n' "$2" >"$HERMES_DESKTOP_STATE_DIR/config.json"
	fi
	"$bin" >"$work/app.out" 2>"$work/app.err" &
	app=$!
	for _ in $(seq 1 120); do
		"$bin" status --json 2>/dev/null | grep -q '"mode":"gui"' && break
		kill -0 "$app" 2>/dev/null || fail "the app exited early"
		sleep 0.5
	done
	a11y wait 'page tab=/Backends( .*)?/' || fail "the window never reached the accessibility bus"
}

# stop_app: quit over the control socket; nothing the app started is left.
stop_app() {
	local code=0 left
	"$bin" stop >/dev/null || fail "stop failed"
	for _ in $(seq 1 60); do kill -0 "$app" 2>/dev/null || break; sleep 0.25; done
	kill -0 "$app" 2>/dev/null && fail "the app is still running after stop"
	wait "$app" || code=$?
	app=
	[ "$code" -eq 0 ] || fail "the app exited with $code"
	sleep 0.3
	left=$(tagged_pids "$HERMES_DESKTOP_TEST_TAG")
	if [ -n "$left" ]; then
		ps -o pid=,args= -p "$(echo $left | tr ' ' ,)" >&2 || true
		kill -9 $left 2>/dev/null || true
		fail "processes left behind: $left"
	fi
}

# json FILE EXPR: EXPR (python, over the parsed file as d) printed.
# json FILE EXPR: EXPR over the JSON in FILE as d ("" when it raises). A
# traceback is kept in $work/tracebacks, which fails the journey when it
# ends (passed), saying it: a check that reads a field wrongly must not pass
# for one that read nothing.
json() {
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>>"$work/tracebacks" || true
}
# field NAME EXPR: EXPR over backend NAME's status as b ("" if there is none).
field() {
	"$bin" status --json >"$work/status.json" 2>/dev/null || { echo; return; }
	json "$work/status.json" "next((str($2) for b in d['backends'] if b['name']=='$1'), '')"
}
# wait_field NAME EXPR WANT [SECONDS]
wait_field() {
	local got=
	for _ in $(seq 1 $((${4:-30} * 4))); do
		got=$(field "$1" "$2")
		[ "$got" = "$3" ] && return 0
		sleep 0.25
	done
	fail "backend $1: $2 is '$got', want '$3'"
}
names() { "$bin" status --json >"$work/status.json" && json "$work/status.json" "' '.join(b['name'] for b in d['backends'])"; }
saved() { json "$HERMES_DESKTOP_STATE_DIR/config.json" "$1"; }
# uptime_in_view NAME: the uptime on backend NAME's card keeps its room
# (a shrunk one spills its text under the buttons) and lies clear of the
# card's buttons.
uptime_in_view() {
	local t b tx ty tw th bx by bw bh
	t=$(a11y extents "article=Backend $1" 'timer=') || fail "no uptime on the card of $1"
	read -r tx ty tw th <<<"$t"
	[ "$tw" -ge 60 ] || fail "the uptime on the card of $1 is squeezed to $tw px"
	for b in "push button=/Open Hermes: $1.*/" 'push button=Restart' 'push button=Stop'; do
		read -r bx by bw bh <<<"$(a11y extents "article=Backend $1" "$b")" || continue
		if [ "$tx" -lt $((bx + bw)) ] && [ $((tx + tw)) -gt "$bx" ] && [ "$ty" -lt $((by + bh)) ] && [ $((ty + th)) -gt "$by" ]; then
			fail "the uptime on the card of $1 ($t) lies under its button $b ($bx $by $bw $bh)"
		fi
	done
}
# start_tray_host: a tray host for the next app, printing each tray icon
# that registers, so that the icons left can be counted (one_tray_icon).
start_tray_host() {
	[ -x "$work/fakewatcher" ] || (cd "$repo" && go build -o "$work/fakewatcher" ./cmd/fakewatcher) || fail "could not build the tray host"
	"$work/fakewatcher" >"$work/watcher.out" 2>&1 &
	watcher=$!
	for _ in $(seq 1 40); do grep -q ready "$work/watcher.out" && break; sleep 0.1; done
}
stop_tray_host() {
	kill "$watcher" && wait "$watcher" 2>/dev/null || true
	watcher=
}
# one_tray_icon WHEN: of the icons that registered, exactly one's owner is
# still on the bus (an icon goes with its owner's connection).
one_tray_icon() {
	local live=0 sender owned
	for sender in $(grep -o 'registered by :[0-9.]*' "$work/watcher.out" | cut -d' ' -f3 | sort -u); do
		owned=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
			--method org.freedesktop.DBus.NameHasOwner "$sender")
		[ "$owned" = "(true,)" ] && live=$((live + 1))
	done
	[ "$live" = 1 ] || fail "tray icons $1: $live, want 1 ($(cat "$work/watcher.out"))"
}
# card_says NAME TEXT: the card of backend NAME shows TEXT (a whole line).
card_says() {
	local i
	for i in $(seq 1 40); do
		a11y texts "article=Backend $1" 2>/dev/null | grep -qx -- "$2" && return 0
		sleep 0.25
	done
	fail "the card of $1 does not say '$2'; it says: $(a11y texts "article=Backend $1" 2>&1 | tr '\n' '|')"
}
shot() { import -window root "$out/journey-$1.png"; }
begin() { journey=$1 began=$SECONDS; echo "gui-journeys: $1 ..."; }
passed() {
	[ ! -s "$work/tracebacks" ] || fail "a step printed a traceback: $(cat "$work/tracebacks")"
	echo "gui-journeys: ok: $journey ($((SECONDS - began)) s)"
}
wanted() { [ -z "${GUI_JOURNEYS:-}" ] || [[ " $GUI_JOURNEYS " == *" $1 "* ]]; }

# The core's path, for the short name above: unpacked by the first start.
core_link() {
	local core
	core=$(field default "b['command'][0]")
	[ -x "$core" ] || fail "no core at '$core'"
	ln -sf "$core" "$work/bin/hermes-journey"
}

# add_backend NAME KIND_RADIO [COMMAND [READY_PATTERN [HEALTH_PATH [HOST]]]]: fill the Add
# backend form and press Add and start.
add_backend() {
	click 'push button=Add backend'
	a11y type "$1" 'form=Add a backend' 'entry=Name' || fail "could not type the name"
	click 'form=Add a backend' "radio button=/$2 .*/"
	if [ -n "${3:-}" ]; then
		a11y type "$3" 'form=Add a backend' 'entry=Command' || fail "could not type the command"
	fi
	# A custom backend's own ready pattern and health path (issue 23, item 2).
	if [ -n "${4:-}" ]; then
		a11y type "$4" 'form=Add a backend' 'entry=/Ready pattern.*/' || fail "could not type the ready pattern"
	fi
	if [ -n "${5:-}" ]; then
		a11y type "$5" 'form=Add a backend' 'entry=/Health check path.*/' || fail "could not type the health path"
	fi
	if [ -n "${6:-}" ]; then
		a11y type "$6" 'form=Add a backend' 'entry=/Host.*/' || fail "could not type the host"
	fi
	click --retry 'form=Add a backend' 'push button=Add and start'
	A11Y_TIMEOUT=30 a11y gone 'form=Add a backend' || fail "the Add form stayed open: $(a11y texts 'form=Add a backend' | tr '\n' '|')"
}

# 1. A Custom backend added in the window becomes ready.
if wanted 1; then
	begin custom
	start_app custom
	wait_field default "b['state']" ready
	# A server that does not speak Hermes' ready line, as the issue found
	# (item 2): it stayed Starting forever. Python buffers its "Serving HTTP
	# on ... port N" line in a pipe unless the app unbuffers it.
	custom_cmd="python3 -m http.server 0 --bind 127.0.0.1"
	add_backend mine Custom "$custom_cmd" 'port (\d+)' /
	wait_field mine "b['state']" ready 60
	card_says mine Ready
	[ "$(field mine "b['kind']")" = custom ] || fail "mine is not custom in status"
	[ "$(saved "[b['command'] for b in d['backends'] if b['name']=='mine']")" = "['$custom_cmd']" ] ||
		fail "config.json does not hold mine's command: $(cat "$HERMES_DESKTOP_STATE_DIR/config.json")"
	[ "$(saved "[b.get('health_path') for b in d['backends'] if b['name']=='mine']")" = "['/']" ] ||
		fail "config.json does not hold mine's health path: $(cat "$HERMES_DESKTOP_STATE_DIR/config.json")"
	shot custom
	stop_app
	passed
fi

# 2. Settings saved after an add and a remove keep both, across a relaunch.
if wanted 2; then
	begin settings
	start_app settings
	wait_field default "b['state']" ready
	# Opened first: the page loads the settings, then the list changes.
	click 'page tab=Settings'
	a11y wait 'entry=/Stop grace period.*/' || fail "no Settings page"
	click 'page tab=/Backends( .*)?/'
	add_backend second Dashboard
	wait_field second "b['state']" ready 60
	click 'push button=Remove backend default'
	click --retry 'Confirm removing default' 'push button=Remove'
	A11Y_TIMEOUT=30 a11y gone 'article=Backend default' || fail "the card of default stayed"
	[ "$(names)" = second ] || fail "status lists '$(names)', want 'second'"
	click 'page tab=Settings'
	a11y type 4s 'entry=/Stop grace period.*/' || fail "could not type the grace"
	click 'push button=Save'
	for _ in $(seq 1 40); do [ "$(saved "d.get('grace')")" = 4s ] && break; sleep 0.25; done
	[ "$(saved "d.get('grace')")" = 4s ] || fail "Save did not write grace 4s"
	[ "$(saved "' '.join(b['name'] for b in d.get('backends', []))")" = second ] ||
		fail "after Save, config.json lists '$(saved "' '.join(b['name'] for b in d.get('backends', []))")', want 'second'"
	stop_app
	start_app settings keep
	wait_field second "b['state']" ready 60
	[ "$(names)" = second ] || fail "after a relaunch, status lists '$(names)', want 'second'"
	a11y wait 'article=Backend second' || fail "after a relaunch, no card for second"
	a11y has 'article=Backend default' && fail "after a relaunch, default is back"
	shot settings-backends
	click 'page tab=Settings'
	[ "$(a11y value 'entry=/Stop grace period.*/')" = 4s ] || fail "after a relaunch, Settings shows grace '$(a11y value 'entry=/Stop grace period.*/')'"
	shot settings
	[ "$(saved "' '.join(b['name'] for b in d.get('backends', []))")" = second ] || fail "config.json changed on relaunch"
	stop_app
	passed
fi

# 3. A backend that exits at once and one that never says ready end Failed.
if wanted 3; then
	begin failed
	# The core is unpacked under the state dir; a first start puts it there.
	if [ ! -e "$work/bin/hermes-journey" ]; then
		start_app core
		wait_field default "b['state']" ready
		core_link
		stop_app
	fi
	# 2 s to be ready, and a crash window of 6 s that forgets timeouts
	# spaced 2 s and more apart, as 60 s timeouts are in a 120 s window
	# (issue 23, item 3): the silent one's four starts take some 10 s.
	export HERMES_DESKTOP_START_TIMEOUT=2s HERMES_DESKTOP_RESTART_WINDOW=6s
	start_app failed '{"backends": [
		{"name": "exits", "kind": "custom", "command": "hermes-journey serve --host 127.0.0.1 --port 0 --exit-code 3"},
		{"name": "silent", "kind": "custom", "command": "hermes-journey serve --host 127.0.0.1 --port 0 --start-delay 1h"}]}'
	unset HERMES_DESKTOP_START_TIMEOUT HERMES_DESKTOP_RESTART_WINDOW
	wait_field exits "b['state']" failed 60
	wait_field silent "b['state']" failed 90
	for b in exits silent; do
		card_says "$b" Failed
		a11y wait "article=Backend $b" 'push button=Try again' || fail "no Try again on $b"
	done
	shot failed
	# Try again starts each afresh: a new run (nonce), starting again.
	for b in exits silent; do
		before=$(field "$b" "b.get('nonce', '')")
		click "article=Backend $b" 'push button=Try again'
		for _ in $(seq 1 80); do [ "$(field "$b" "b.get('nonce', '')")" != "$before" ] && break; sleep 0.25; done
		[ "$(field "$b" "b.get('nonce', '')")" != "$before" ] || fail "Try again did not start $b again"
		# Its card grows and shrinks with each of its restarts, moving the
		# next card under the pointer: the next click comes once it has
		# failed again and the page is still, as a person's would.
		[ "$b" = silent ] || wait_field "$b" "b['state']" failed 30
	done
	wait_field silent "b['state']" starting 10
	card_says silent Starting
	stop_app
	passed
fi

# zombies_under PID...: the zombie children of those processes.
zombies_under() {
	local f stat pid ppid state
	for f in /proc/[0-9]*/stat; do
		stat=$(cat "$f" 2>/dev/null) || continue
		pid=${stat%% *}
		read -r state ppid _ <<<"${stat##*) }"
		[ "$state" = Z ] || continue
		for p in "$@"; do [ "$ppid" = "$p" ] && echo "$pid(under $p)"; done
	done
	return 0
}

opened() { if [ -f "$work/opened" ]; then wc -l <"$work/opened"; else echo 0; fi; }
# open_once BUTTON: click it until the opener runs once more (a missed
# click is clicked again, at most twice, and said).
open_once() {
	local before try
	before=$(opened)
	for try in 1 2 3; do
		[ "$try" -gt 1 ] && echo "gui-journeys: $1 started no opener: click $try" >&2
		click "$1"
		for _ in $(seq 1 12); do [ "$(opened)" -gt "$before" ] && return 0; sleep 0.25; done
	done
	fail "$1 started no opener"
}

# 4. Shim crashes and opens leave no zombie under the app or a shim.
if wanted 4; then
	begin zombies
	start_app zombies
	wait_field default "b['state']" ready
	for i in 1 2 3; do
		shim=$(field default "b.get('shim_pid', 0)")
		[ "${shim:-0}" -gt 0 ] || fail "no shim pid (crash $i)"
		kill -9 "$shim"
		for _ in $(seq 1 120); do
			# shim_pid is left out while no shim runs (the restart in progress).
			[ "$(field default "b.get('shim_pid', 0)")" != "$shim" ] && [ "$(field default "b['state']")" = ready ] && break
			sleep 0.25
		done
		[ "$(field default "b['state']")" = ready ] || fail "not ready again after shim crash $i"
	done
	rm -f "$work/opened"
	click 'page tab=Logs'
	for _ in 1 2 3 4 5; do open_once 'push button=Open log folder'; done
	click 'page tab=/Backends( .*)?/'
	for _ in 1 2 3 4 5; do open_once 'push button=Open Hermes: default, in your browser'; done
	[ "$(opened)" -eq 10 ] || fail "the opener ran $(opened) times, want 10"
	# The must-hold: none 5 s after the last child exit (the openers'
	# children live 0.2 s).
	since=$(date +%s%N)
	while :; do
		shims=$("$bin" status --json | /usr/bin/python3 -c 'import json,sys; print(" ".join(str(b["shim_pid"]) for b in json.load(sys.stdin)["backends"] if b.get("shim_pid")))')
		# shellcheck disable=SC2086
		zs=$(zombies_under "$app" $shims)
		[ -z "$zs" ] && break
		[ $(($(date +%s%N) - since)) -gt 5500000000 ] && fail "zombies 5 s on: $(echo $zs)"
		sleep 0.2
	done
	shot zombies
	stop_app
	passed
fi

# 5. Stop clears the card: no PID, port or address, nothing to copy.
if wanted 5; then
	begin stop
	start_app stop '{"backends": [{"name": "api", "kind": "serve"}]}'
	wait_field api "b['state']" ready 60
	a11y wait 'article=Backend api' 'push button=Copy connection details' || fail "no Copy connection details while ready"
	click --retry 'article=Backend api' 'push button=Stop'
	wait_field api "b['state']" stopped
	wait_field api "(b.get('pid', 0), b.get('port', 0), b.get('url', ''))" "(0, 0, '')"
	card_says api Stopped
	a11y wait 'article=Backend api' 'push button=Start' || fail "no Start on the stopped card"
	a11y has 'article=Backend api' 'push button=Copy connection details' && fail "Copy connection details still offered after Stop"
	# Captured first: under pipefail, grep -q ending the pipe early would
	# fail its writer with SIGPIPE and hide a match.
	texts=$(a11y texts 'article=Backend api')
	if grep -q 'http://127\.0\.0\.1' <<<"$texts"; then
		fail "the stopped card still shows an address"
	fi
	shot stop
	stop_app
	passed
fi

# 6. A backend on another host, added in the window: a real sshd on
# loopback with its own host key, client key and config (its sessions get
# a HOME of their own and a tag of their own), the form's Host an alias of
# that config, named in Settings' SSH config file.
if wanted 6; then
	begin remote
	r=$work/sshd # not $work/remote: start_app remote makes that afresh
	rm -rf "$r" && mkdir -p "$r/home" && chmod 700 "$r" "$r/home"
	ssh-keygen -q -t ed25519 -N '' -f "$r/host_key"
	ssh-keygen -q -t ed25519 -N '' -f "$r/id"
	cp "$r/id.pub" "$r/authorized_keys"
	port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	remote_tag=gui-journeys-sshd-$$
	cat >"$r/sshd_config" <<EOF
ListenAddress 127.0.0.1:$port
HostKey $r/host_key
AuthorizedKeysFile $r/authorized_keys
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
PidFile none
LogLevel VERBOSE
AllowTcpForwarding local
SetEnv HOME=$r/home HERMES_DESKTOP_TEST_TAG=$remote_tag
EOF
	[ "$(id -u)" = 0 ] && mkdir -p /run/sshd # Debian's sshd wants it as root
	/usr/sbin/sshd -D -f "$r/sshd_config" -E "$r/sshd.log" &
	sshd=$!
	for _ in $(seq 1 40); do
		(: </dev/tcp/127.0.0.1/"$port") 2>/dev/null && break
		sleep 0.1
	done
	echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$r/host_key.pub")" >"$r/known_hosts"
	cat >"$r/ssh_config" <<EOF
Host journeybox
	HostName 127.0.0.1
	Port $port
	User $(id -un)
	IdentityFile $r/id
	IdentitiesOnly yes
	IdentityAgent none
	UserKnownHostsFile $r/known_hosts
	GlobalKnownHostsFile /dev/null
EOF
	start_tray_host
	start_app remote "{\"ssh_config\": \"$r/ssh_config\"}"
	add_backend far Dashboard "" "" "" journeybox
	[ "$(saved "[b.get('host') for b in d['backends'] if b['name'] == 'far']")" = "['journeybox']" ] || fail "the host was not saved: $(cat "$HERMES_DESKTOP_STATE_DIR/config.json")"
	wait_field far "b['state']" ready 90
	wait_field far "b.get('remote', {}).get('connection', '')" connected
	card_says far Connected
	card_says far journeybox
	uptime_in_view far
	page=$(field far "b['page_url']")
	curl -fsS -o /dev/null "$page" || fail "the remote dashboard's page $page does not answer through the tunnel"
	shot remote
	# A failed handoff (item 2): a successor that fails its start, in
	# restart mode, so the remote backend is stopped for it and started
	# again when it fails. The remote backend must come back through the
	# same ssh connection, and one tray icon must be left.
	"$bin" status --json >"$work/status.json"
	first=$(json "$work/status.json" "d['instance']['pid']")
	printf '#!/bin/sh\n[ "$1" = version ] && exec %s version\nexit 3\n' "$bin" >"$work/broken-successor"
	chmod +x "$work/broken-successor"
	if handoff_out=$("$bin" handoff --to "$work/broken-successor" --mode restart --timeout 20s 2>&1); then
		fail "a handoff to a successor that fails its start succeeded: $handoff_out"
	fi
	grep -q 'handoff failed' <<<"$handoff_out" || fail "the failed handoff did not say so: $handoff_out"
	"$bin" status --json >"$work/status.json"
	[ "$(json "$work/status.json" "d['instance']['pid']")" = "$first" ] || fail "the old instance is not in charge after the failed handoff"
	wait_field far "b['state']" ready 60
	wait_field far "b.get('remote', {}).get('connection', '')" connected
	card_says far Connected
	page=$(field far "b['page_url']")
	curl -fsS -o /dev/null "$page" || fail "after the failed handoff the remote page $page does not answer through the tunnel"
	grep -q 'msg="handoff failed"' "$HERMES_DESKTOP_STATE_DIR/launcher.log" || fail "launcher.log does not say the handoff failed"
	one_tray_icon "after the failed handoff"
	shot remote-after-failed-handoff
	# The remote reap on the Boot reap page: the remote watchdog (a
	# process this journey's sshd started, checked by its tag) killed, the
	# backend is started again, and the reap before that start finds its
	# session file, whose watchdog is gone, and says so, naming the host.
	shim=$(field far "b['shim_pid']")
	tr '\0' '\n' <"/proc/$shim/environ" | grep -qx "HERMES_DESKTOP_TEST_TAG=$remote_tag" || fail "the remote watchdog $shim is not this journey's"
	pid_before=$(field far "b['pid']")
	kill -KILL "$shim"
	for _ in $(seq 1 120); do
		[ "$(field far "b['state']")" = ready ] && [ "$(field far "b['pid']")" != "$pid_before" ] && break
		sleep 0.5
	done
	[ "$(field far "b['pid']")" != "$pid_before" ] || fail "the remote backend was not started again after its watchdog was killed"
	click 'page tab=Boot reap'
	a11y wait 'heading=On remote hosts' || fail "the Boot reap page has no remote reap: $(a11y texts | tr '\n' '|')"
	# The texts whole, then grep: grep -q ending the pipe early fails it
	# (pipefail) when a11y is still writing.
	named=
	for _ in $(seq 1 40); do
		reap_texts=$(a11y texts 2>/dev/null) || true
		grep -qx journeybox <<<"$reap_texts" && { named=1; break; }
		sleep 0.25
	done
	[ -n "$named" ] || fail "the Boot reap page does not name the host: $(tr '\n' '|' <<<"$reap_texts")"
	shot remote-reap
	click 'page tab=/Backends( .*)?/'
	stop_app
	[ "$(grep -c 'Accepted publickey' "$r/sshd.log")" = 1 ] || fail "authentications: $(grep -c 'Accepted publickey' "$r/sshd.log"), want 1"
	for _ in $(seq 1 40); do [ -z "$(tagged_pids "$remote_tag")" ] && break; sleep 0.25; done
	left=$(tagged_pids "$remote_tag")
	[ -z "$left" ] || fail "left on the remote after quit: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ,)")"
	[ -z "$(ls -A "$r/home/.hermes/desktop-ssh" 2>/dev/null)" ] || fail "lock directories left on the remote: $(ls "$r/home/.hermes/desktop-ssh")"
	kill "$sshd" && wait "$sshd" 2>/dev/null || true
	sshd=
	stop_tray_host
	passed
fi

# 7. Restart Hermes Desktop after an add and a remove; a diagnostic report.
if wanted 7; then
	begin restart
	home_was=$HOME
	export HOME=$work/restart-home
	mkdir -p "$HOME/Downloads"
	# A secret in the app's environment: the report must not carry it.
	export HERMES_JOURNEY_API_KEY=planted-journey-secret-7f3e
	start_tray_host
	start_app restart
	wait_field default "b['state']" ready
	"$bin" status --json >"$work/s.json"
	first=$(json "$work/s.json" "d['instance']['pid']")
	add_backend second Dashboard
	wait_field second "b['state']" ready 60
	click 'push button=Remove backend default'
	click --retry 'Confirm removing default' 'push button=Remove'
	A11Y_TIMEOUT=30 a11y gone 'article=Backend default' || fail "the card of default stayed"
	click 'page tab=Settings'
	# Given to a backend as it starts: the backends restart with the app.
	a11y type 4s 'entry=/Stop grace period.*/' || fail "could not type the grace"
	click 'push button=Save'
	click 'push button=Restart Hermes Desktop'
	began_restart=$SECONDS
	new=
	for _ in $(seq 1 40); do
		"$bin" status --json >"$work/s.json" 2>/dev/null || { sleep 0.25; continue; }
		pid=$(json "$work/s.json" "d['instance']['pid']")
		if [ -n "$pid" ] && [ "$pid" != "$first" ] && [ "$(json "$work/s.json" "d['instance']['mode']")" = gui ]; then
			new=$pid
			break
		fi
		sleep 0.25
	done
	[ -n "$new" ] || fail "no new instance in charge 10 s after Restart Hermes Desktop: $(cat "$work/s.json" 2>/dev/null | head -c 300)"
	[ "$(names)" = second ] || fail "the new instance runs '$(names)', want 'second'"
	echo "gui-journeys: restart: the new instance ($new) was in charge $((SECONDS - began_restart)) s after the click"
	# The old one hands over and exits 0 (it is our child; the new one is not).
	for _ in $(seq 1 40); do kill -0 "$app" 2>/dev/null || break; sleep 0.25; done
	wait "$app" || fail "the old instance exited with $?"
	app=$new
	grep -q 'handoff failed' "$HERMES_DESKTOP_STATE_DIR/launcher.log" && fail "launcher.log says the handoff failed: $(grep 'handoff failed' "$HERMES_DESKTOP_STATE_DIR/launcher.log")"
	a11y wait 'page tab=/Backends( .*)?/' || fail "the new instance's window never reached the accessibility bus"
	wait_field second "b['state']" ready 30
	# The new instance's icon, and none of the old one's.
	for _ in $(seq 1 40); do [ "$(grep -c 'registered by' "$work/watcher.out")" -ge 2 ] && break; sleep 0.25; done
	one_tray_icon "after Restart Hermes Desktop"
	click 'page tab=Logs'
	click 'push button=Save a diagnostic report…'
	report=
	for _ in $(seq 1 40); do
		report=$(ls "$HOME"/Downloads/hermes-desktop-report-*.zip 2>/dev/null | head -1)
		[ -n "$report" ] && break
		sleep 0.25
	done
	[ -n "$report" ] || fail "no report in $HOME/Downloads"
	# Its name without .zip: WebKitGTK 4.0 splits a wrapped line's text there.
	said=
	for _ in $(seq 1 20); do
		a11y texts 2>/dev/null | grep -qF "$(basename "$report" .zip)" && { said=1; break; }
		sleep 0.25
	done
	[ -n "$said" ] || fail "the page does not say where the report went: $(a11y texts 2>&1 | grep -i report)"
	shot restart-report
	# Into files first: unzip writes line by line, and under pipefail grep -q
	# leaving early fails it with SIGPIPE (a listing with launcher.log in it
	# read as one without, and a planted secret found but not reported).
	unzip -l "$report" >"$work/report-list.txt"
	unzip -p "$report" >"$work/report-all.txt"
	grep -q 'launcher.log' "$work/report-list.txt" || fail "the report has no launcher.log: $(cat "$work/report-list.txt")"
	grep -q 'planted-journey-secret' "$work/report-all.txt" && fail "the report carries the planted secret"
	# Stopped as stop_app would, but the app is not this shell's child now.
	"$bin" stop >/dev/null || fail "stop failed"
	for _ in $(seq 1 60); do kill -0 "$app" 2>/dev/null || break; sleep 0.25; done
	kill -0 "$app" 2>/dev/null && fail "the new instance is still running after stop"
	app=
	sleep 0.3
	left=$(tagged_pids "$HERMES_DESKTOP_TEST_TAG")
	[ -z "$left" ] || { kill -9 $left 2>/dev/null; fail "processes left behind: $left"; }
	unset HERMES_JOURNEY_API_KEY
	export HOME=$home_was
	stop_tray_host
	passed
fi

echo "gui-journeys: all journeys passed; screenshots in $out"
