# shellcheck shell=bash
# Sourced by the test scripts (bash). Every process the app starts in a test
# inherits HERMES_DESKTOP_TEST_TAG, so what a test left behind is found by
# that tag, without looking at (or signalling) anyone else's processes;
# and the small waits and checks the package tests share.

# tagged_pids prints the PIDs of live (non-zombie) processes whose
# environment carries HERMES_DESKTOP_TEST_TAG=TAG.
tagged_pids() { # $1: the tag
	local f pid state
	for f in /proc/[0-9]*/environ; do
		pid=${f#/proc/}
		pid=${pid%/environ}
		grep -qsz "^HERMES_DESKTOP_TEST_TAG=$1\$" "$f" || continue
		state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)
		[ -n "$state" ] && [ "$state" != Z ] && echo "$pid"
	done
	return 0
}

# kill_tagged sends SIGKILL to every live process carrying TAG.
kill_tagged() { # $1: the tag
	local pid
	for pid in $(tagged_pids "$1"); do
		kill -9 "$pid" 2>/dev/null || true
	done
}

no_tagged() { [ -z "$(tagged_pids "$1")" ]; }

# wait_until retries CMD... for up to $WAIT_TRIES (default 60) half-seconds.
wait_until() {
	local i
	for ((i = 0; i < ${WAIT_TRIES:-60}; i++)); do
		"$@" && return 0
		sleep 0.5
	done
	return 1
}

# expect_none_tagged waits up to 20 s for the processes carrying TAG to be
# gone; those still alive then are shown, killed, and the sourcing script's
# fail (which it defines) names them.
expect_none_tagged() { # $1: tag, $2: what
	local left
	WAIT_TRIES=40 wait_until no_tagged "$1" && return 0
	left=$(tagged_pids "$1")
	ps -o pid=,user=,args= -p "$(echo "$left" | paste -sd,)" >&2 || true
	kill_tagged "$1"
	fail "$2: processes left behind: $(echo "$left" | paste -sd' ')"
}
