package run

import "testing"

// The first line that announces a valid port counts; later ones, and
// ports out of range, do not.
func TestPortMatcher(t *testing.T) {
	m := NewPortMatcher(`READY port=(\d+)`)
	for _, line := range []string{"starting", "READY port=0", "READY port=70000", "READY port=8642", "READY port=9000"} {
		m.Line(line)
	}
	select {
	case got := <-m.Found():
		if got != 8642 {
			t.Errorf("port: got %d, want 8642", got)
		}
	default:
		t.Fatal("no port found, want 8642")
	}
	select {
	case got := <-m.Found():
		t.Errorf("a second port: got %d, want only the first", got)
	default:
	}
}
