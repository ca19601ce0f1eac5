// Package human says values in the words a person reads, where the Go
// spelling would leak into the window or the terminal: a duration is
// "3 min" or "1 min 30 s", never "3m0s". It is a leaf: standard library
// only.
package human

import (
	"fmt"
	"strings"
	"time"
)

var units = []struct {
	d    time.Duration
	name string
}{
	{24 * time.Hour, "d"},
	{time.Hour, "h"},
	{time.Minute, "min"},
	{time.Second, "s"},
	{time.Millisecond, "ms"},
}

// Duration says d in at most its two largest units, rounded down: "5 s",
// "3 min", "1 min 30 s", "2 h 5 min", "7 d", "250 ms". Below a
// millisecond it is "0 ms"; a negative d reads as its size with a minus.
// The page's formatSpan (frontend/src/format.ts) says the same.
func Duration(d time.Duration) string {
	if d < 0 {
		return "-" + Duration(-d)
	}
	var parts []string
	for _, u := range units {
		if n := d / u.d; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, u.name))
			d -= n * u.d
		} else if len(parts) > 0 {
			break // "1 h 0 min 5 s" reads as "1 h"
		}
		if len(parts) == 2 {
			break
		}
	}
	if len(parts) == 0 {
		return "0 ms"
	}
	return strings.Join(parts, " ")
}
