package leakguard

import (
	"testing"
	"time"

	"hermes-desktop/platform/proc"
)

// A tree sampled elsewhere is judged as a local one: its duplicates beyond
// the policy's count are handed to StopWith's function, once each, oldest
// first, and left out of the sample; nothing is signalled here.
func TestGuardStopsElsewhere(t *testing.T) {
	t0 := time.Now().Add(-time.Hour)
	id := func(pid int) proc.Identity {
		return proc.Identity{PID: pid, Start: "linux:" + string(rune('0'+pid%10))}
	}
	procs := []TreeProc{NewTreeProc(id(4000001), 1, []string{"backend"}, 10<<20, 12, t0)}
	for i := range 4 {
		procs = append(procs, NewTreeProc(id(4000010+i), 4000001, []string{"mcp", "--x"}, 1<<20, 3, t0.Add(time.Duration(i)*time.Minute)))
	}
	var handed []proc.Identity
	g := New(Config{MaxDuplicateChildren: 2}, nil, nil)
	g.StopWith(func(p TreeProc, grace time.Duration, why string) error {
		if why != "more than 2 copies" {
			t.Errorf("why: %q", why)
		}
		handed = append(handed, p.Identity())
		return nil
	})
	for range 2 {
		s := Assemble(time.Now(), 1024, append([]TreeProc(nil), procs...))
		if s.Count != 5 || s.FDs != 24 || s.RSSBytes != 14<<20 || len(s.Duplicates) != 1 || s.Duplicates[0].Count != 4 {
			t.Fatalf("Assemble: got %+v", s)
		}
		g.Check(s, time.Second)
		if s.Count != 3 {
			t.Errorf("after Check: %d processes shown, want 3 (the two stopped left out)", s.Count)
		}
	}
	if len(handed) != 2 || handed[0] != id(4000010) || handed[1] != id(4000011) {
		t.Errorf("handed to StopWith: %v, want the two oldest duplicates once each", handed)
	}
	// Gone from the next sample: forgotten.
	g.Check(Assemble(time.Now(), 1024, append([]TreeProc{procs[0]}, procs[3:]...)), time.Second)
	if len(g.asked) != 0 {
		t.Errorf("the stopped processes are still remembered: %v", g.asked)
	}
}
