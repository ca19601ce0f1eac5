package proc

import (
	"strconv"
	"strings"
	"time"
)

// lstartLayout is how `ps -o lstart=` prints a start time (local time).
const lstartLayout = "Mon Jan _2 15:04:05 2006"

// kinfoTime reads a "kinfo:<seconds>.<microseconds>" marker.
func kinfoTime(marker string) (time.Time, bool) {
	v, ok := strings.CutPrefix(marker, "kinfo:")
	if !ok {
		return time.Time{}, false
	}
	sec, usec, ok := strings.Cut(v, ".")
	s, e1 := strconv.ParseInt(sec, 10, 64)
	u, e2 := strconv.ParseInt(usec, 10, 64)
	if !ok || e1 != nil || e2 != nil {
		return time.Time{}, false
	}
	return time.Unix(s, u*1000), true
}

// sameStart compares start markers. Ours are exact instants; Hermes'
// ("ps:" and "darwin:" followed by lstart) are local times to the second,
// so one of each is compared in lstart form, in this process's zone: both
// were made by processes started within moments of each other.
func sameStart(a, b string) bool {
	if a == b {
		return true
	}
	if _, ok := kinfoTime(a); ok {
		a, b = b, a
	}
	t, ok := kinfoTime(b)
	if !ok {
		return false
	}
	for _, prefix := range []string{"ps:", "darwin:"} {
		if v, ok := strings.CutPrefix(a, prefix); ok {
			return v == t.Local().Format(lstartLayout)
		}
	}
	return false
}

// hermesMarker gives Hermes' "ps:<lstart>" form of one of our markers.
func hermesMarker(start string) string {
	if t, ok := kinfoTime(start); ok {
		return "ps:" + t.Local().Format(lstartLayout)
	}
	return start
}
