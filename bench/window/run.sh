#!/usr/bin/env bash
# bench/window: what a person waits for and what the window holds, next to
# the blank Wails window of bench/idle/floor, in one run on one machine. It
# measures and prints; it asserts nothing but that typed letters landed in
# the field they were typed into, and exits 0 when it could measure.
#
# Under Xvfb and a private D-Bus session (no window manager), three parts:
#   keys     typing: 50 characters with xdotool (100 ms apart) into
#            Settings > Ready pattern and into the Add backend form's
#            Name, with the app on one quiet backend. CPU of the app process
#            and its WebKit processes (every thread's schedstat, as
#            bench/idle) from the first key until both are quiet again
#            (under 1% of a core for 0.5 s), minus what the same page costs
#            idle over the same time, per key. Then Enter saves the form,
#            and config.json must hold exactly the typed text: the keys
#            landed in that field, in order.
#   startup  double-click -> window mapped -> first paint -> state shown,
#            timed from the framebuffer by startprobe.py (see there);
#            "state shown" is the header's green "ready" pill (the floor:
#            its text). p50 and max over STARTS cold starts (fresh state,
#            HOME caches and XDG dirs, and the page cache dropped first when
#            /proc/sys/vm/drop_caches is writable, i.e. as root) and STARTS
#            warm ones (the same dirs again, after one unmeasured start).
#   memory   PSS (/proc/PID/smaps_rollup) of the app process and its WebKit
#            processes, SETTLE seconds after the window showed, on the
#            Backends page; the floor's the same way.
# --before PATH measures another build (e.g. main's) in the same run, each
# part side by side; its figures print first.
# --webkit40 PATH measures the two WebKitGTK flavours side by side: PATH
# (a `make gui-webkit40` build) next to --bin (the webkit41 one), and the
# floor window built both ways (floor40, floor41); each build's ratio is
# to the floor of its own flavour.
#
# --backend says what the app runs: "builtin" (the default) is what a new
# user without Hermes gets, the built-in backend started from the core the
# build carries (no backend configured, no `hermes` on the app's PATH);
# "self" a custom backend running BIN serve, the built-in backend started
# from the desktop binary itself, which loads GTK and WebKitGTK at each
# start (how this bench ran before 2026-12-04).
#
# usage: bench/window/run.sh [--bin PATH] [--before PATH | --webkit40 PATH] [--backend builtin|self] [--parts LIST] [--starts N] [--settle S] [--artifacts DIR]
#   --bin       (HERMES_DESKTOP_BIN, default build/bin/hermes-desktop, built
#               with `make gui` when missing)
#   --before    (BEFORE_BIN, default none)  a second build measured alike
#   --webkit40  (WEBKIT40_BIN, default none)  the webkit40 flavour, with its floor
#   --backend   (BACKEND, default builtin)
#   --parts     (PARTS, default keys,startup,memory)
#   --starts    (STARTS, default 10)  cold and warm starts each, per window
#   --settle    (SETTLE, default 15)  seconds before memory is read
#   --artifacts (ARTIFACTS, default artifacts)  screenshots: window-*.png
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
self=$repo/bench/window/run.sh
bin=${HERMES_DESKTOP_BIN:-$repo/build/bin/hermes-desktop}
before=${BEFORE_BIN:-}
webkit40=${WEBKIT40_BIN:-}
parts=${PARTS:-keys,startup,memory}
backend=${BACKEND:-builtin}
starts=${STARTS:-10}
settle=${SETTLE:-15}
artifacts=${ARTIFACTS:-$repo/artifacts}
KEYS=50

usage() { sed -n '/^# usage:/,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--bin) bin=${2:?--bin needs a path}; shift 2 ;;
		--before) before=${2:?--before needs a path}; shift 2 ;;
		--webkit40) webkit40=${2:?--webkit40 needs a path}; shift 2 ;;
		--backend) backend=${2:?--backend needs builtin or self}; shift 2 ;;
		--parts) parts=${2:?--parts needs a list}; shift 2 ;;
		--starts) starts=${2:?--starts needs a count}; shift 2 ;;
		--settle) settle=${2:?--settle needs seconds}; shift 2 ;;
		--artifacts) artifacts=${2:?--artifacts needs a directory}; shift 2 ;;
		-h | --help) usage ;;
		*) echo "bench/window: unknown argument $1" >&2; usage ;;
		esac
	done
	[[ $starts =~ ^[0-9]+$ && $starts -gt 0 ]] || { echo "bench/window: --starts: want a count > 0, got $starts" >&2; exit 2; }
	[[ $settle =~ ^[0-9]+$ ]] || { echo "bench/window: --settle: want whole seconds, got $settle" >&2; exit 2; }
	[[ ,$parts, =~ ^(,(keys|startup|memory))+,$ ]] || { echo "bench/window: --parts: want a comma-separated list of keys, startup, memory; got $parts" >&2; exit 2; }
	[ -z "$before" ] || [ -z "$webkit40" ] || { echo "bench/window: --before and --webkit40 do not go together" >&2; exit 2; }
	[[ $backend =~ ^(builtin|self)$ ]] || { echo "bench/window: --backend: want builtin or self, got $backend" >&2; exit 2; }
}

# build_floors builds the floor window of --bin's flavour, and with
# --webkit40 one of each flavour (floor41 is --bin's).
build_floors() {
	build_floor "$bin" "$work/floor"
	[ -n "$webkit40" ] || return 0
	env -u DISPLAY "$bin" version --json | grep -q '"flavour":"webkit41"' || die "--bin $bin is not the webkit41 build"
	env -u DISPLAY "$webkit40" version --json | grep -q '"flavour":"webkit40"' || die "--webkit40 $webkit40 is not the webkit40 build"
	cp "$work/floor" "$work/floor41"
	build_floor "$webkit40" "$work/floor40"
}

say() { echo "bench/window: $*" >&2; }
die() { say "FAIL: $*"; exit 1; }

# shellcheck source=bench/lib/window.sh
. "$repo/bench/lib/window.sh"

wanted() { [[ ,$parts, == *,$1,* ]]; }

# --- the outer run: build, then run the inner one under Xvfb ----------------

outer() {
	parse_args "$@"
	mkdir -p "$artifacts"
	artifacts=$(realpath "$artifacts")
	(cd "$repo" && scripts/install-gui-deps.sh) >&2
	if [ ! -x "$bin" ]; then
		say "no $bin: make gui"
		make -C "$repo" gui >&2
	fi
	bin=$(realpath "$bin")
	[ -z "$before" ] || before=$(realpath "$before")
	[ -z "$webkit40" ] || webkit40=$(realpath "$webkit40")
	work=$(mktemp -d /tmp/bench-window.XXXXXX)
	tag=bench-window-$$
	trap outer_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	say "building the fake tray host and the floor window"
	(cd "$repo" && go build -o "$work/fakewatcher" ./cmd/fakewatcher) >&2
	build_floors
	env -u DBUS_SESSION_BUS_ADDRESS -u HERMES_DESKTOP_HEADLESS \
		HERMES_DESKTOP_TEST_TAG="$tag" BENCH_WINDOW_INNER=1 BENCH_WINDOW_WORK="$work" \
		PARTS="$parts" BACKEND="$backend" STARTS="$starts" SETTLE="$settle" HERMES_DESKTOP_BIN="$bin" BEFORE_BIN="$before" WEBKIT40_BIN="$webkit40" ARTIFACTS="$artifacts" \
		xvfb-run -a -s '-screen 0 1280x860x24' dbus-run-session -- "$self" </dev/null >&2 &
	local inner=$!
	if ! wait "$inner"; then
		print_tables
		die "the measuring run failed; the figures above are what it measured"
	fi
	print_tables
}

# --- the inner run ------------------------------------------------------------

inner() {
	work=$BENCH_WINDOW_WORK
	tag=$HERMES_DESKTOP_TEST_TAG
	watcher='' app='' floor='' probe=''
	trap window_cleanup EXIT
	trap 'exit 143' TERM
	: >"$work/keys"
	: >"$work/starts"
	: >"$work/memory"
	[ "$backend" = self ] || PATH=$(path_without_hermes)
	start_watcher
	local builds=("after $bin") floors=("floor $work/floor") b
	[ -z "$before" ] || builds=("before $before" "${builds[@]}")
	if [ -n "$webkit40" ]; then
		builds=("app40 $webkit40" "app41 $bin")
		floors=("floor40 $work/floor40" "floor41 $work/floor41")
	fi
	if wanted keys; then
		measure_keys_floor
		for b in "${builds[@]}"; do measure_keys ${b% *} "${b#* }"; done
	fi
	if wanted startup; then
		for b in "${floors[@]}"; do measure_starts "${b% *}" floor "${b#* }"; done
		for b in "${builds[@]}"; do measure_starts "${b% *}" ready "${b#* }"; done
	fi
	if wanted memory; then
		for b in "${floors[@]}"; do measure_memory_floor "${b% *}" "${b#* }"; done
		for b in "${builds[@]}"; do measure_memory "${b% *}" "${b#* }"; done
	fi
}

window_cleanup() {
	[ -n "$floor" ] && stop_pid "$floor"
	[ -n "$app" ] && { "$bin" stop >/dev/null 2>&1 || true; stop_pid "$app"; }
	[ -n "$probe" ] && stop_pid "$probe"
	[ -n "$watcher" ] && stop_pid "$watcher"
	return 0
}

# app_cpu PID prints the CPU nanoseconds app PID and its WebKit processes
# live threads have run so far (for wait_quiet).
app_cpu() {
	snapshot "$1" | awk '$1 == "T" && $2 != "rest" { ns += $4 } END { printf "%d\n", ns }'
}

# wait_quiet PID: until app + WebKit ran under 5 ms in half a second (1% of
# a core), up to 90 s.
wait_quiet() {
	local a b
	a=$(app_cpu "$1")
	for _ in $(seq 1 180); do
		sleep 0.5
		b=$(app_cpu "$1")
		[ $((b - a)) -lt 5000000 ] && [ $((b - a)) -ge 0 ] && return 0
		a=$b
	done
	die "the window did not quieten within 90 s of typing"
}

# click_at X Y: a click at window-relative X, Y (the window is at its
# place: there is no window manager to move it).
click_at() {
	local X Y
	eval "$(xdotool getwindowgeometry --shell "$(window_id 'Hermes Desktop')" | grep -E '^(X|Y)=[0-9]+$')"
	xdotool mousemove $((X + $1)) $((Y + $2)) click 1
}

# type_measured LABEL FIELD TEXT: the page idle for 5 s, then TEXT typed
# into the focused field until quiet; appends "LABEL FIELD KEYS SECONDS"
# and delta's figures of both (idle first) to the results.
type_measured() {
	local label=$1 field=$2 text=$3 t0 t1 idle secs
	snapshot "$app" >"$work/idle.0"; t0=$EPOCHREALTIME
	sleep 5
	snapshot "$app" >"$work/idle.1"; t1=$EPOCHREALTIME
	idle="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') $(delta "$work/idle.0" "$work/idle.1")"
	snapshot "$app" >"$work/keys.0"; t0=$EPOCHREALTIME
	xdotool type --delay 100 "$text"
	wait_quiet "$app"
	snapshot "$app" >"$work/keys.1"; t1=$EPOCHREALTIME
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	echo "$label $field ${#text} $secs $(delta "$work/keys.0" "$work/keys.1") $idle" >>"$work/keys"
}

# config_value EXPR prints a Python expression over config.json (c).
config_value() {
	python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$HERMES_DESKTOP_STATE_DIR/config.json" "$1" 2>/dev/null || true
}

# landed LABEL FIELD EXPR WANT: after Enter saved the form, until config.json's
# EXPR reads WANT (up to 10 s); the verdict goes with the figures.
landed() {
	local got=''
	for _ in $(seq 1 40); do
		got=$(config_value "$3")
		[ "$got" = "$4" ] && break
		sleep 0.25
	done
	if [ "$got" = "$4" ]; then echo "$1 $2 yes" >>"$work/landed"
	else
		say "$1 $2: config.json has ${got:-nothing}, typed $4"
		echo "$1 $2 no" >>"$work/landed"
	fi
}

# measure_keys LABEL BIN: typing into Settings and into the Add form.
measure_keys() {
	local label=$1 text name
	bin=$2
	say "keys, $label: $bin"
	start_app "keys-$label" "'$bin' serve --host 127.0.0.1 --port 0"
	wait_page
	# The supervisor samples the tree every second for 30 s after ready.
	sleep 30
	# Settings > Ready pattern: the second field, below Backend command
	# (read-only here: the backend list decides), whose place in a 1100 x
	# 760 window the page's layout fixes; landed tells if the click missed.
	read -ra xy <<<"$(nav_point 4)"
	xdotool mousemove "${xy[0]}" "${xy[1]}" click 1
	sleep 2
	click_at 610 427
	text="$(printf 'readyline%.0s' 1 2 3 4 5 | cut -c1-$((KEYS - 10)))port=(\d+)"
	type_measured "$label" settings "$text"
	import -window root "$artifacts/window-keys-settings-$label.png"
	xdotool key Return
	landed "$label" settings "c.get('ready_regex')" "$text"
	# Backends > Add backend: the form opens with Name focused.
	read -ra xy <<<"$(nav_point 0)"
	xdotool mousemove "${xy[0]}" "${xy[1]}" click 1
	sleep 1
	click_at 865 91
	sleep 1.5
	name=$(printf 'typedname%.0s' 1 2 3 4 5 6 | cut -c1-$KEYS)
	type_measured "$label" add "$name"
	import -window root "$artifacts/window-keys-add-$label.png"
	xdotool key Return
	landed "$label" add "' '.join(b['name'] for b in c.get('backends', []))" "default $name"
	stop_app
}

# measure_keys_floor: typing into the floor page's one text field, no
# script: what any WebKitGTK window costs per key.
measure_keys_floor() {
	local X Y
	say "keys, floor"
	fresh_dirs keys-floor
	"$work/floor" >"$work/floor.out" 2>&1 &
	floor=$!
	wait_window Floor "$floor"
	sleep 3
	eval "$(xdotool getwindowgeometry --shell "$(window_id Floor)" | grep -E '^(X|Y)=[0-9]+$')"
	xdotool mousemove $((X + 200)) $((Y + 94)) click 1
	app=$floor
	type_measured floor input "$(printf 'typedfloor%.0s' 1 2 3 4 5 | cut -c1-$KEYS)"
	app=''
	import -window root "$artifacts/window-keys-floor.png"
	echo "floor input -" >>"$work/landed"
	stop_pid "$floor"
	floor=''
}

# drop_caches: the page cache emptied, for a cold start, when we may.
dropped=no
drop_caches() {
	sync
	if [ -w /proc/sys/vm/drop_caches ]; then echo 3 >/proc/sys/vm/drop_caches; dropped=yes
	else dropped=no; fi
}

# start_probed LABEL READY COMMAND... (in a state dir set up by the caller):
# one start timed by startprobe.py, appended to the results, then stopped.
start_probed() {
	local label=$1 ready=$2 out=$work/probe.out pid='' times=''
	shift 2
	: >"$out"
	python3 "$repo/bench/window/startprobe.py" "$([ "$ready" = floor ] && echo Floor || echo 'Hermes Desktop')" "$ready" -- "$@" >"$out" 2>>"$work/probe.err" &
	probe=$!
	for _ in $(seq 1 140); do
		grep -q '^times ' "$out" && break
		kill -0 "$probe" 2>/dev/null || break
		sleep 0.25
	done
	pid=$(awk '$1 == "pid" { print $2 }' "$out")
	times=$(awk '$1 == "times" { print $2, $3, $4 }' "$out")
	[ -n "$times" ] || times="- - -"
	echo "$label $times" >>"$work/starts"
	if [ "$ready" = ready ]; then "$1" stop >/dev/null 2>&1 || true; fi
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
	# The probe reaps the window's process and then exits: wait for that,
	# so that the next start finds nothing of this one.
	for _ in $(seq 1 80); do kill -0 "$probe" 2>/dev/null || break; sleep 0.25; done
	stop_pid "$probe"
	probe=''
	[[ $times != *-* ]] || say "$label: a step was not seen within 30 s: $times; $(tail -3 "$work/probe.err" 2>/dev/null)"
}

# fresh_dirs NAME: new state, Hermes home, HOME and XDG dirs under $work/NAME
# (WebKit keeps caches in XDG_CACHE_HOME and XDG_DATA_HOME).
fresh_dirs() {
	local dir=$work/$1
	rm -rf "$dir"
	mkdir -p "$dir/state" "$dir/home" "$dir/xdg/cache" "$dir/xdg/data" "$dir/xdg/config"
	export HERMES_DESKTOP_STATE_DIR=$dir/state HERMES_HOME=$dir/home XDG_CACHE_HOME=$dir/xdg/cache XDG_DATA_HOME=$dir/xdg/data XDG_CONFIG_HOME=$dir/xdg/config
}

write_config() { # BIN
	if [ "$backend" = builtin ]; then
		echo '{"backends": [{"name": "default", "kind": "dashboard"}]}' >"$HERMES_DESKTOP_STATE_DIR/config.json"
		return
	fi
	python3 -c 'import json, sys; print(json.dumps({"backends": [{"name": "default", "kind": "custom", "command": sys.argv[1]}]}))' \
		"'$1' serve --host 127.0.0.1 --port 0" >"$HERMES_DESKTOP_STATE_DIR/config.json"
}

# path_without_hermes: PATH less every directory holding a `hermes`, so
# that a dashboard backend is the built-in one on any machine.
path_without_hermes() {
	local dir out=''
	local IFS=:
	for dir in $PATH; do
		[ -x "$dir/hermes" ] || out=${out:+$out:}$dir
	done
	echo "$out"
}

# measure_starts LABEL READY BIN: STARTS cold starts, then one unmeasured
# and STARTS warm ones.
measure_starts() {
	local label=$1 ready=$2 b=$3 i
	say "startup, $label: $starts cold, $starts warm"
	for i in $(seq 1 "$starts"); do
		fresh_dirs "start-$label-cold"
		[ "$ready" = floor ] || write_config "$b"
		drop_caches
		start_probed "$label-cold" "$ready" "$b"
	done
	fresh_dirs "start-$label-warm"
	[ "$ready" = floor ] || write_config "$b"
	start_probed "$label-warmup" "$ready" "$b"
	for i in $(seq 1 "$starts"); do start_probed "$label-warm" "$ready" "$b"; done
	echo "$dropped" >"$work/dropped"
}

# pss_of PID: kB of PSS of PID and its WebKit processes, as "APP WEBKIT".
pss_of() {
	local p role app_kb=0 webkit_kb=0 kb
	while read -r _ role p; do
		p=${p%%:*}
		kb=$(awk '/^Pss:/ { print $2 }' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
		if [ "$role" = app ]; then app_kb=$((app_kb + kb)); elif [ "$role" = webkit ]; then webkit_kb=$((webkit_kb + kb)); fi
	done < <(snapshot "$1" | awk '$1 == "P" { print $1, $2, $3 }')
	echo "$app_kb $webkit_kb"
}

measure_memory_floor() { # LABEL FLOOR
	say "memory, $1: ${settle}s after the window showed"
	fresh_dirs "mem-$1"
	"$2" >"$work/floor.out" 2>&1 &
	floor=$!
	wait_window Floor "$floor"
	sleep "$settle"
	echo "$1 $(pss_of "$floor")" >>"$work/memory"
	stop_pid "$floor"
	floor=''
}

measure_memory() { # LABEL BIN
	bin=$2
	say "memory, $1: ${settle}s after the window showed"
	start_app "mem-$1" "'$bin' serve --host 127.0.0.1 --port 0"
	wait_page
	xdotool mousemove 1279 859
	sleep "$settle"
	echo "$1 $(pss_of "$app")" >>"$work/memory"
	import -window root "$artifacts/window-memory-$1.png"
	stop_app
}

# --- the tables ---------------------------------------------------------------

print_tables() {
	echo "The window as a person meets it, one run, side by side with the blank Wails window;"
	echo "$(nproc) CPUs, $(uname -sr), commit $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown); the app's backend: $backend."
	python3 "$repo/bench/window/tables.py" "$work" "$settle"
	echo
	echo "Screenshots: $artifacts/window-*.png"
}

if [ "${BENCH_WINDOW_INNER:-}" = 1 ]; then
	inner
else
	outer "$@"
fi
