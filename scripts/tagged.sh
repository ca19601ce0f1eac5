# shellcheck shell=bash
# Sourced by the test scripts (bash). Every process the app starts in a test
# inherits HERMES_DESKTOP_TEST_TAG, so what a test left behind is found by
# that tag, without looking at (or signalling) anyone else's processes.

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
