package testbin

import (
	"testing"
	"time"
)

func TestQuantiles(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, ms(i))
	}
	if p50, p99, max := Quantiles(ds); p50 != ms(50) || p99 != ms(99) || max != ms(100) {
		t.Errorf("1..100 ms: got %v %v %v, want 50ms 99ms 100ms", p50, p99, max)
	}
	if p50, p99, max := Quantiles([]time.Duration{Never, ms(3)}); p50 != ms(3) || p99 != Never || max != Never {
		t.Errorf("with Never: got %v %v %v, want 3ms and Never twice", p50, p99, max)
	}
	for d, want := range map[time.Duration]string{ms(6) + 500*time.Microsecond: "6.5ms", 1500 * time.Millisecond: "1.50s", Never: "-"} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v): got %q, want %q", d, got, want)
		}
	}
}
