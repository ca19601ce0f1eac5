package testbin

import (
	"fmt"
	"slices"
	"time"
)

// Never is a duration that did not end: a process that never went, within
// a benchmark's wait. Quantiles sorts it last, FormatDuration prints "-".
const Never = time.Duration(1<<63 - 1)

// Quantiles returns the median, the 99th percentile (the nearest rank) and
// the maximum of ds, for the benchmarks' tables; ds is sorted in place and
// must not be empty.
func Quantiles(ds []time.Duration) (p50, p99, max time.Duration) {
	slices.Sort(ds)
	rank := func(q float64) time.Duration { return ds[min(len(ds)-1, int(q*float64(len(ds))+0.999)-1)] }
	return rank(0.5), rank(0.99), ds[len(ds)-1]
}

// FormatDuration prints d for a benchmark's table: milliseconds with one
// decimal under a second, seconds with two above, "-" for Never.
func FormatDuration(d time.Duration) string {
	switch {
	case d == Never:
		return "-"
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}
