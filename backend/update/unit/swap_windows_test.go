package unit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSwapFailurePutsBack: a move that fails (here: the incoming
// executable is held open, which Windows does not let be renamed) puts
// every entry back, without a crash to recover from.
func TestSwapFailurePutsBack(t *testing.T) {
	dir := beforeUpdate(t)
	f, err := os.Open(filepath.Join(dir, "staged", ExeUnix))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = Swap(dir, "staged", "old", Versions{From: "1.0.0", To: "1.1.0"})
	if err == nil || !strings.Contains(err.Error(), "whole again") {
		t.Fatalf("got %v, want a failure that put the unit back", err)
	}
	wantWhole(t, dir, oldUnit, "the old unit")
}
