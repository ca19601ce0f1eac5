# bench/lib/window.sh: what the window benches (bench/idle, bench/window)
# share, sourced by them: exact CPU time from /proc, the run's tagged
# processes, the fake tray host, and starting, finding and stopping the app's
# window under Xvfb. The sourcing script defines say and die, and sets:
#   work  its temporary directory      tag  HERMES_DESKTOP_TEST_TAG of the run
#   bin   the hermes-desktop binary    app  the app's PID once started ('' before)
#   watcher  the fake tray host's PID (start_watcher sets it)
# shellcheck shell=bash

# --- the floor window -------------------------------------------------------

# build_floor BIN OUT builds bench/idle/floor, the blank Wails window, of
# the same WebKitGTK flavour as BIN (its version --json), so that a ratio
# to the floor compares like with like.
build_floor() {
	local flavour tags=desktop,production
	flavour=$(env -u DISPLAY "$1" version --json | python3 -c 'import json, sys; print(json.load(sys.stdin).get("flavour", ""))')
	[ "$flavour" = webkit41 ] && tags=$tags,webkit2_41
	(cd "$repo" && CGO_ENABLED=1 go build -tags "$tags" -o "$2" ./bench/idle/floor) >&2
}

# --- reading /proc ----------------------------------------------------------

# snapshot PID prints PID's tree, one line per process, then one per thread:
#   P ROLE PID:STARTTIME TICKS
#   T ROLE PID:STARTTIME/TID NS SLICES COMM/THREADCOMM
# ROLE is app (PID itself), webkit (a descendant whose comm starts with
# WebKit) or rest. TICKS is utime+stime (proc(5), stat fields 14 and 15):
# whole clock ticks, truncated per process and per read, so two readings of
# a quiet process are off by up to two ticks. NS and SLICES come from each
# thread's schedstat: the exact time it ran, in nanoseconds, and how many
# times it was put on a CPU (each of which is a wakeup at rest). The key
# carries the start time (field 22) so that a PID reused between two
# snapshots is not taken for the same process. Reads only with builtins: no
# fork per process, so the snapshot hardly disturbs what it measures.
snapshot() {
	local root=$1 f s rest pid p t tc role i=0
	local -a fields queue=("$1")
	local -A ticks start comm children
	for f in /proc/[0-9]*/stat; do
		{ read -r s <"$f"; } 2>/dev/null || continue # gone since the glob
		pid=${f#/proc/}; pid=${pid%/stat}
		comm[$pid]=${s#*(}; comm[$pid]=${comm[$pid]%)*}
		rest=${s##*) }
		read -ra fields <<<"$rest" # fields[0] is stat field 3
		children[${fields[1]}]+=" $pid"
		ticks[$pid]=$((fields[11] + fields[12]))
		start[$pid]=${fields[19]}
	done
	[ -n "${ticks[$root]:-}" ] || return 1
	while [ $i -lt ${#queue[@]} ]; do
		p=${queue[$i]}; i=$((i + 1))
		read -ra fields <<<"${children[$p]:-}"
		queue+=("${fields[@]}")
	done
	for p in "${queue[@]}"; do
		role=rest
		[ "$p" = "$root" ] && role=app
		[[ ${comm[$p]} == WebKit* ]] && role=webkit
		echo "P $role $p:${start[$p]} ${ticks[$p]}"
		for f in /proc/"$p"/task/[0-9]*/schedstat; do
			{ read -ra fields <"$f"; } 2>/dev/null || continue
			t=${f%/schedstat}; t=${t##*/}
			{ read -r tc <"/proc/$p/task/$t/comm"; } 2>/dev/null || tc=?
			echo "T $role $p:${start[$p]}/$t ${fields[0]} ${fields[2]} ${comm[$p]// /_}/${tc// /_}"
		done
	done
}

# ticks_of PID prints PID's utime+stime, or 0 when it is gone.
ticks_of() {
	local s rest
	local -a fields
	{ read -r s <"/proc/$1/stat"; } 2>/dev/null || { echo 0; return 0; }
	rest=${s##*) }
	read -ra fields <<<"$rest"
	echo $((fields[11] + fields[12]))
}

# delta BEFORE AFTER prints what each role used between two snapshots:
#   APP WEBKIT REST NWEBKIT APP_NS WEBKIT_NS REST_NS APP_SLICES WEBKIT_SLICES
# ticks first, then exact CPU time and slices. A process or thread born in
# between counts from zero; a thread that ended in between is lost (at rest
# hardly any does).
delta() {
	awk 'NR == FNR { before[$1 " " $3] = $4; bslices[$3] = $5; next }
		$1 == "P" { d[$2] += $4 - (("P " $3) in before ? before["P " $3] : 0); if ($2 == "webkit") n++ }
		$1 == "T" {
			ns[$2] += $4 - (("T " $3) in before ? before["T " $3] : 0)
			sl[$2] += $5 - ($3 in bslices ? bslices[$3] : 0)
		}
		END { printf "%d %d %d %d %d %d %d %d %d\n", d["app"], d["webkit"], d["rest"], n,
			ns["app"], ns["webkit"], ns["rest"], sl["app"], sl["webkit"] }' "$1" "$2"
}

# tagged prints the live processes that carry this run's tag in their
# environment: everything the run started, and nothing else.
tagged() {
	local f pid state
	for f in /proc/[0-9]*/environ; do
		pid=${f#/proc/}; pid=${pid%/environ}
		grep -qsz "^HERMES_DESKTOP_TEST_TAG=$tag\$" "$f" || continue
		state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)
		[ -n "$state" ] && [ "$state" != Z ] && echo "$pid"
	done
	return 0
}

# outer_cleanup sweeps what the run started, should anything outlive the
# inner run (it stops its own processes; this is for a crash, a signal, or
# a session helper that lingers): SIGTERM, a few seconds, then SIGKILL, only
# to processes with this run's tag.
outer_cleanup() {
	local left p names=''
	trap '' INT TERM # a second signal must not cut the sweep short
	# Session helpers (the accessibility bus GTK starts on demand) end on
	# their own once dbus-run-session has gone, a moment later.
	left=$(untagged_within 8)
	if [ -n "$left" ]; then
		for p in $left; do names+=" $p($(cat "/proc/$p/comm" 2>/dev/null))"; done
		say "stopping what the run left:$names"
		# shellcheck disable=SC2086 # a list of PIDs
		kill -TERM $left 2>/dev/null || true
		left=$(untagged_within 20)
		if [ -n "$left" ]; then
			# shellcheck disable=SC2086 # a list of PIDs
			kill -KILL $left 2>/dev/null || true
		fi
	fi
	rm -rf "$work"
	return 0
}

# untagged_within N waits up to N quarter seconds for the tagged processes
# to end, and prints those still alive. (An explicit `return 0`: a bare
# return in a trap handler returns the status the trap began with.)
untagged_within() {
	local left
	for _ in $(seq 1 "$1"); do
		left=$(tagged)
		[ -z "$left" ] && return 0
		sleep 0.25
	done
	echo "$left"
}

# stop_pid PID: SIGTERM, up to 10 s, then SIGKILL; PID is a child of ours,
# so it cannot be reused before we wait for it.
stop_pid() {
	local i
	kill -TERM "$1" 2>/dev/null || return 0
	for i in $(seq 1 40); do kill -0 "$1" 2>/dev/null || break; sleep 0.25; done
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# find_xvfb prints the PID of our Xvfb: the one process named Xvfb with our tag.
find_xvfb() {
	local p
	for p in $(tagged); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = Xvfb ] && { echo "$p"; return 0; }
	done
	echo 0
}

start_watcher() {
	"$work/fakewatcher" >"$work/watcher.out" 2>&1 &
	watcher=$!
	for _ in $(seq 1 40); do grep -q ready "$work/watcher.out" && return 0; sleep 0.1; done
	die "the fake tray host did not start: $(cat "$work/watcher.out")"
}

# window_id NAME prints the visible top-level window named NAME, if any.
window_id() { xdotool search --onlyvisible --name "^$1\$" 2>/dev/null | head -1; }

wait_window() { # NAME PID
	for _ in $(seq 1 120); do
		[ -n "$(window_id "$1")" ] && return 0
		kill -0 "$2" 2>/dev/null || die "$1: exited before showing its window"
		sleep 0.25
	done
	die "$1: no visible window after 30 s"
}

# start_app NAME COMMAND: the app with its own state dir, whose one backend
# is the custom COMMAND, until that backend is ready and the window shows.
start_app() {
	local dir=$work/$1 command=$2
	export HERMES_DESKTOP_STATE_DIR=$dir/state HERMES_HOME=$dir/home
	mkdir -p "$HERMES_DESKTOP_STATE_DIR" "$HERMES_HOME"
	python3 -c 'import json, sys; print(json.dumps({"backends": [{"name": "default", "kind": "custom", "command": sys.argv[1]}]}))' \
		"$command" >"$HERMES_DESKTOP_STATE_DIR/config.json"
	"$bin" >"$dir/app.out" 2>"$dir/app.err" &
	app=$!
	for _ in $(seq 1 120); do
		"$bin" status --json 2>/dev/null | grep -q '"state":"ready"' && break
		kill -0 "$app" 2>/dev/null || die "$1: the app exited early: $(tail -5 "$dir/app.err")"
		sleep 0.5
	done
	"$bin" status --json 2>/dev/null | grep -q '"state":"ready"' || die "$1: the backend is not ready: $(tail -5 "$dir/app.err")"
	wait_window 'Hermes Desktop' "$app"
}

# stop_app: `stop` over the control socket (returns once every backend tree
# is gone), then the app ends on its own; stop_pid if it does not.
stop_app() {
	"$bin" stop >/dev/null 2>&1 || true
	for _ in $(seq 1 60); do kill -0 "$app" 2>/dev/null || break; sleep 0.25; done
	stop_pid "$app"
	app=
}

# The sidebar's geometry, from frontend/src/style.css: a 52 px top bar, then
# the sidebar (200 px wide above 900 px of window, padding 16 px; 12 px
# below), its items 36 px tall, 2 px apart, in the order of state.ts's TABS
# (Backends, Process tree, Logs, ...). nav_point ROW prints the absolute
# "X Y" of a point inside sidebar item ROW (0 = Backends), right of its
# label, where only the item's background shows.
nav_point() {
	local X Y WIDTH top=16
	eval "$(xdotool getwindowgeometry --shell "$(window_id 'Hermes Desktop')" | grep -E '^(X|Y|WIDTH)=[0-9]+$')"
	[ "$WIDTH" -le 900 ] && top=12
	echo "$((X + 176)) $((Y + 52 + top + $1 * 38 + 18))"
}

# nav_colour PNG ROW prints the colour of sidebar item ROW in a screenshot.
nav_colour() {
	local xy
	read -ra xy <<<"$(nav_point "$2")"
	convert "$1" -format "%[pixel:p{${xy[0]},${xy[1]}}]" info:
}

# wait_page: until the page has drawn its sidebar (the Backends item,
# selected, no longer looks like the Logs item), up to 30 s. Then the
# colour of a selected item is known: selected_colour.
wait_page() {
	local png=$work/probe.png
	for _ in $(seq 1 60); do
		import -window root "$png"
		selected_colour=$(nav_colour "$png" 0)
		[ "$selected_colour" != "$(nav_colour "$png" 2)" ] && return 0
		sleep 0.5
	done
	die "the page never drew its sidebar where nav_point expects it; see $png"
}
