#!/usr/bin/env bash
# bench/idle: what the desktop app costs at rest, next to the cheapest Wails
# window there is, in one run on one machine. It measures and prints; it
# asserts nothing (timing on shared machines is noisy), and exits 0 when it
# could measure.
#
# Everything runs under Xvfb and a private D-Bus session, with a fake tray
# host (cmd/fakewatcher) so that closing the window hides it. Five
# states, DURATION seconds each, after SETTLE seconds (by default past the
# backend's first minute, in which the page counts its uptime in seconds):
#   floor     bench/idle/floor: a Wails window with one static page
#   floor-quiet  the same window with WebKit's memory polling off, as the
#             app runs its own (desktop.QuietWebView): what that polling
#             costs any WebKitGTK window
#   backends  the app's window on the Backends page (its default), with a
#             quiet backend (the built-in `serve`)
#   logs      the window on the Logs page (clicked in the sidebar with
#             xdotool), the backend wrapped in ticker.py: a line a second
#   hidden    the same app, window closed to the tray (scripts/wm-close.py)
# For each: the CPU time of the app process and of its WebKit processes (its
# descendants whose comm starts with "WebKit"), exact, from every thread's
# /proc/PID/task/TID/schedstat; their sum as a share of one core and as a
# ratio to the floor; their wakeups; and, beside them, the same in clock
# ticks (utime+stime), which are too coarse for a quiet process (see the
# table's notes). For information, the rest of the app's tree (watchdog shim
# and backend) and Xvfb. Screenshots of each state: $ARTIFACTS/idle-*.png.
# With --threads, each state's busiest threads follow the table: who wakes.
#
# usage: bench/idle/run.sh [--duration S] [--settle S] [--states LIST] [--bin PATH] [--artifacts DIR] [--threads]
#   --duration  (DURATION, default 60)   seconds measured per state
#   --settle    (SETTLE, default 65)     seconds waited before measuring
#   --states    (STATES, default floor,floor-quiet,backends,logs,hidden)  which to measure
#   --bin       (HERMES_DESKTOP_BIN, default build/bin/hermes-desktop, built
#               with `make gui` when missing)
#   --artifacts (ARTIFACTS, default artifacts)  where the screenshots go
#   --threads   (THREADS=1)  print the busiest threads of each state
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
self=$repo/bench/idle/run.sh
duration=${DURATION:-60}
settle=${SETTLE:-65}
states=${STATES:-floor,floor-quiet,backends,logs,hidden}
threads=${THREADS:-}
bin=${HERMES_DESKTOP_BIN:-$repo/build/bin/hermes-desktop}
artifacts=${ARTIFACTS:-$repo/artifacts}

usage() { sed -n '/^# usage:/,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--duration) duration=${2:?--duration needs seconds}; shift 2 ;;
		--settle) settle=${2:?--settle needs seconds}; shift 2 ;;
		--bin) bin=${2:?--bin needs a path}; shift 2 ;;
		--artifacts) artifacts=${2:?--artifacts needs a directory}; shift 2 ;;
		--states) states=${2:?--states needs a list}; shift 2 ;;
		--threads) threads=1; shift ;;
		-h | --help) usage ;;
		*) echo "bench/idle: unknown argument $1" >&2; usage ;;
		esac
	done
	[[ $duration =~ ^[0-9]+$ && $duration -gt 0 ]] || { echo "bench/idle: --duration: want whole seconds > 0, got $duration" >&2; exit 2; }
	[[ $settle =~ ^[0-9]+$ ]] || { echo "bench/idle: --settle: want whole seconds, got $settle" >&2; exit 2; }
	[[ ,$states, =~ ^(,(floor|floor-quiet|backends|logs|hidden))+,$ ]] || { echo "bench/idle: --states: want a comma-separated list of floor, floor-quiet, backends, logs, hidden; got $states" >&2; exit 2; }
}

say() { echo "bench/idle: $*" >&2; }
die() { say "FAIL: $*"; exit 1; }

# shellcheck source=bench/lib/window.sh
. "$repo/bench/lib/window.sh"

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
	work=$(mktemp -d /tmp/bench-idle.XXXXXX)
	tag=bench-idle-$$
	trap outer_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	say "building the fake tray host and the floor window"
	(cd "$repo" && go build -o "$work/fakewatcher" ./cmd/fakewatcher) >&2
	build_floor "$bin" "$work/floor" # of the app's WebKitGTK flavour
	# The tag goes only into what the run starts (not into this shell), so
	# that the sweep in outer_cleanup finds all of it and nothing else. Its
	# output goes to stderr: stdout is the table (at-spi's registry, for
	# one, prints a line on the stdout it inherits).
	env -u DBUS_SESSION_BUS_ADDRESS -u HERMES_DESKTOP_HEADLESS \
		HERMES_DESKTOP_TEST_TAG="$tag" BENCH_IDLE_INNER=1 BENCH_IDLE_WORK="$work" \
		DURATION="$duration" SETTLE="$settle" STATES="$states" HERMES_DESKTOP_BIN="$bin" ARTIFACTS="$artifacts" \
		xvfb-run -a -s '-screen 0 1280x860x24' dbus-run-session -- "$self" </dev/null >&2 &
	local inner=$!
	wait "$inner" || die "the measuring run failed (exit $?)"
	print_table "$work/results"
	if [ -n "$threads" ]; then print_threads; fi
}

# print_threads: for each state measured, the threads that ran most in it
# (app and WebKit threads; a thread that ended in between is not shown).
print_threads() {
	local state
	for state in floor floor-quiet backends logs hidden; do
		wanted "$state" || continue
		echo
		echo "$state: busiest threads (ms, times put on a CPU, role, process/thread)"
		awk 'NR == FNR { if ($1 == "T") { ns[$3] = $4; sl[$3] = $5 }; next }
			$1 == "T" && $2 != "rest" { d = $4 - ($3 in ns ? ns[$3] : 0); if (d > 0) printf "%10.2f %6d  %-6s %s\n", d / 1e6, $5 - ($3 in sl ? sl[$3] : 0), $2, $6 }' \
			"$work/$state.0" "$work/$state.1" | sort -rn | head -12
	done
}

# --- the inner run: under Xvfb and D-Bus, measure each state ----------------

inner() {
	work=$BENCH_IDLE_WORK
	tag=$HERMES_DESKTOP_TEST_TAG
	watcher='' app='' floor=''
	trap inner_cleanup EXIT
	trap 'exit 143' TERM
	: >"$work/results"
	xvfb=$(find_xvfb)
	start_watcher
	if wanted floor; then measure_floor floor; fi
	if wanted floor-quiet; then measure_floor floor-quiet WEBKIT_DISABLE_MEMORY_PRESSURE_MONITOR=1; fi
	if wanted backends; then
		start_app quiet "'$bin' serve --host 127.0.0.1 --port 0"
		measure_backends
		stop_app
	fi
	if wanted logs || wanted hidden; then
		start_app ticking "'$(command -v python3)' '$repo/bench/idle/ticker.py' '$bin' serve --host 127.0.0.1 --port 0"
		if wanted logs; then measure_logs; fi
		if wanted hidden; then measure_hidden; fi
		stop_app
	fi
}

wanted() { [[ ,$states, == *,$1,* ]]; }

# inner_cleanup stops what the inner run started, by the PIDs it started.
inner_cleanup() {
	[ -n "$floor" ] && stop_pid "$floor"
	[ -n "$app" ] && stop_pid "$app"
	[ -n "$watcher" ] && stop_pid "$watcher"
	return 0
}

# measure STATE PID: SETTLE seconds, a screenshot ($ARTIFACTS/idle-STATE.png)
# that check_STATE must accept, then DURATION seconds of STATE, appended to
# the results as "STATE SECONDS <delta's nine figures> XVFB".
measure() {
	local state=$1 pid=$2 png=$artifacts/idle-$1.png t0 t1 x0 x1 d
	say "$state: settling ${settle}s, then measuring ${duration}s"
	sleep "$settle"
	import -window root "$png"
	"check_$state" "$png" || die "$state: the screen is not as expected; see $png"
	snapshot "$pid" >"$work/$state.0" || die "$state: pid $pid is gone"
	x0=$(ticks_of "$xvfb")
	t0=$EPOCHREALTIME
	sleep "$duration"
	t1=$EPOCHREALTIME
	x1=$(ticks_of "$xvfb")
	snapshot "$pid" >"$work/$state.1" || die "$state: pid $pid exited while measured"
	d=$(delta "$work/$state.0" "$work/$state.1")
	echo "$state $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') $d $((x1 - x0))" >>"$work/results"
}

# measure_floor STATE [ENV...]: the floor window, with ENV added.
measure_floor() {
	local state=$1
	shift
	env "$@" "$work/floor" >"$work/floor.out" 2>&1 &
	floor=$!
	wait_window Floor "$floor"
	measure "$state" "$floor"
	stop_pid "$floor"
	floor=''
}

check_floor() { [ -n "$(window_id Floor)" ]; }
check_floor-quiet() { check_floor; }

# check_backends, check_logs PNG: is that sidebar item the selected one?
check_backends() { [ "$(nav_colour "$1" 0)" = "$selected_colour" ] && [ "$(nav_colour "$1" 2)" != "$selected_colour" ]; }
check_logs() { [ "$(nav_colour "$1" 2)" = "$selected_colour" ] && [ "$(nav_colour "$1" 0)" != "$selected_colour" ]; }

# check_hidden PNG: no window named Hermes Desktop is visible.
check_hidden() { [ -z "$(window_id 'Hermes Desktop')" ]; }

measure_backends() {
	wait_page
	measure backends "$app"
}

measure_logs() {
	local xy
	wait_page
	read -ra xy <<<"$(nav_point 2)"
	xdotool mousemove "${xy[0]}" "${xy[1]}" click 1
	# Out of the window, so that no hover state is drawn while measuring.
	xdotool mousemove 1279 859
	measure logs "$app"
}

measure_hidden() {
	python3 "$repo/scripts/wm-close.py" 'Hermes Desktop' || die "hidden: no window to close"
	sleep 1
	kill -0 "$app" 2>/dev/null || die "hidden: closing the window quit the app (no tray host?)"
	measure hidden "$app"
}

# --- the table --------------------------------------------------------------

# print_table RESULTS: the figures, the share of a core, the ratio to the
# floor, and the issue's goals ("Quiet at rest") next to them. The goals are
# judged on exact CPU time; ticks are printed beside it for comparison.
print_table() {
	local hz
	hz=$(getconf CLK_TCK)
	echo "Idle cost of app + WebKit processes in each state, one run, side by side;"
	echo "$(nproc) CPUs, $(uname -sr), commit $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)."
	echo
	awk -v hz="$hz" '
	BEGIN {
		label["floor"] = "floor: blank Wails window"
		label["floor-quiet"] = "floor, WebKit polling off"
		label["backends"] = "shown, Backends page"
		label["logs"] = "shown, Logs page, 1 line/s"
		label["hidden"] = "hidden to the tray, 1 line/s"
		printf "%-30s %5s %8s %8s %8s %7s %7s %8s %6s %7s %8s %6s  %-26s %s\n", "state", "secs", "app ms", "WebKit", "total", "% core", "x floor",
			"wakeup/s", "ticks", "x floor", "shim+be", "Xvfb", "goal (app + WebKit)", "met"
	}
	{
		state = $1; secs = $2; ticks = $3 + $4; ms = ($7 + $8) / 1e6
		pct = ms / (secs * 1000) * 100
		if (state == "floor") { floor = ms; floorticks = ticks }
		ratio = floor > 0 ? sprintf("%.2f", ms / floor) : "n/a"
		tratio = floorticks > 0 ? sprintf("%.2f", ticks / floorticks) : "n/a"
		goal = "-"; met = "-"
		if (state == "backends" || state == "logs") {
			goal = "<= 1.5x floor, < 1% core"
			if (pct >= 1 || (floor > 0 && ms / floor > 1.5)) met = "no"
			else met = floor > 0 ? "yes" : "n/a: floor 0"
		} else if (state == "hidden") {
			goal = "< 0.2% core"
			met = pct < 0.2 ? "yes" : "no"
		}
		printf "%-30s %5.1f %8.1f %8.1f %8.1f %6.3f%% %7s %8.2f %6d %7s %8.1f %6d  %-26s %s\n", label[state], secs, $7 / 1e6, $8 / 1e6, ms, pct, ratio,
			($10 + $11) / secs, ticks, tratio, $9 / 1e6, $12, goal, met
		if ($6 == 0 && state != "hidden") warn = warn "\nnote: no WebKit process found under " state
	}
	END { if (warn != "") print warn }' "$1"
	echo
	echo "app ms, WebKit, total: CPU time the threads ran (schedstat, exact); % core = total / seconds;"
	echo "x floor = total / the floor's total. wakeup/s: times app + WebKit threads were put on a CPU."
	echo "ticks: utime + stime (1/$hz s) of app + WebKit, truncated to whole ticks per process, so each"
	echo "reading is off by up to 2 ticks per process: too coarse for ratios of a few ticks."
	echo "shim+be: CPU ms of the app's watchdog shim and backend (and ticker.py), not in the total; Xvfb in ticks."
	echo "The app runs its window with WebKit's memory polling off (desktop.QuietWebView); the floor keeps"
	echo "Wails' defaults, and floor-quiet is that floor with the same switch: what the polling costs."
	echo "Screenshots: $artifacts/idle-{floor,floor-quiet,backends,logs,hidden}.png"
}

if [ "${BENCH_IDLE_INNER:-}" = 1 ]; then
	inner
else
	outer "$@"
fi
