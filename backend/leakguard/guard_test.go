package leakguard

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// testGuard returns a guard and the lines it handed its callback.
func testGuard(cfg Config) (*Guard, *[]string) {
	var lines []string
	return New(cfg, slog.New(slog.DiscardHandler), func(l string) { lines = append(lines, l) }), &lines
}

func sampleOf(nofile int64, procs ...TreeProc) *TreeSample {
	s := &TreeSample{SampledAt: time.Now(), NofileSoft: nofile, Processes: procs, Count: len(procs)}
	for _, p := range procs {
		s.RSSBytes += p.RSSBytes
		s.FDs += p.FDs
	}
	s.Duplicates = duplicateGroups(procs[1:])
	return s
}

func TestDuplicateGroups(t *testing.T) {
	t0 := time.Now()
	procs := []TreeProc{
		{PID: 5, Argv: []string{"mimir", "--db", "x"}, Started: t0.Add(2 * time.Second)},
		{PID: 3, Argv: []string{"mimir", "--db", "x"}, Started: t0},
		{PID: 9, Argv: []string{"node", "a.js"}},
		{PID: 4, Argv: []string{"mimir", "--db", "x"}, Started: t0.Add(time.Second)},
		{PID: 7, Argv: []string{"node", "a.js"}},
		{PID: 8, Argv: []string{"node", "b.js"}},
	}
	g := duplicateGroups(procs)
	if len(g) != 2 || g[0].Count != 3 || g[1].Count != 2 {
		t.Fatalf("groups: %+v", g)
	}
	if g[0].PIDs[0] != 3 || g[0].PIDs[2] != 5 {
		t.Errorf("oldest first: got %v, want [3 4 5]", g[0].PIDs)
	}
}

func TestGuardWarnings(t *testing.T) {
	g, lines := testGuard(Config{RestartOnFDPressure: true, RSSGrowthWarn: 100 << 20})
	backend := TreeProc{PID: 10, Argv: []string{"hermes", "serve"}, FDs: 700, RSSBytes: 50 << 20}
	kid := func(pid int) TreeProc { return TreeProc{PID: pid, Argv: []string{"mcp"}, RSSBytes: 10 << 20} }
	s := sampleOf(1000, backend, kid(11), kid(12), kid(13), kid(14))
	if restart := g.Check(s, time.Second); restart != "" {
		t.Errorf("restart at 70%%: %q", restart)
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Kind != WarnDuplicates {
		t.Errorf("warnings: %+v, want one duplicates warning", s.Warnings)
	}
	backend.FDs = 850
	backend.RSSBytes = 300 << 20
	s = sampleOf(1000, backend, kid(11))
	if restart := g.Check(s, time.Second); restart != "" {
		t.Errorf("restart at 85%%: %q", restart)
	}
	kinds := map[string]bool{}
	for _, w := range s.Warnings {
		kinds[w.Kind] = true
	}
	if !kinds[WarnFDPressure] || !kinds[WarnRSSGrowth] || kinds[WarnDuplicates] {
		t.Errorf("warnings: %+v, want fd pressure and RSS growth only", s.Warnings)
	}
	backend.FDs = 960
	s = sampleOf(1000, backend)
	if restart := g.Check(s, time.Second); !strings.Contains(restart, "file descriptors") {
		t.Errorf("restart at 96%%: %q", restart)
	}
	if n := strings.Count(strings.Join(*lines, "\n"), "files open"); n != 1 {
		t.Errorf("the fd warning was logged %d times in one episode, want 1: %v", n, *lines)
	}
}

// TestGuardStopsOldestDuplicatesOnly: of four copies of one child, the two
// oldest are stopped, at once by SIGTERM where there is one, else (Windows)
// killed by a Check once the grace period is over; the two newest are kept.
func TestGuardStopsOldestDuplicatesOnly(t *testing.T) {
	g, _ := testGuard(Config{MaxDuplicateChildren: 2})
	var kids []TreeProc
	for i := 0; i < 4; i++ {
		c := startHelper(t, nil, "sleep", sleeperArg)
		p, err := proc.Stat(c.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		kids = append(kids, TreeProc{PID: p.PID, Argv: []string{"mcp-server", "--stdio"}, Started: time.Now().Add(time.Duration(i) * time.Second), id: p.Identity()})
	}
	tree := func() *TreeSample {
		return sampleOf(0, append([]TreeProc{{PID: 1, Argv: []string{"backend"}}}, kids...)...)
	}
	const grace = 50 * time.Millisecond
	s := tree()
	g.Check(s, grace)
	if len(s.Duplicates) != 1 || s.Duplicates[0].Count != 2 {
		t.Fatalf("after the policy: got %+v, want one group of 2", s.Duplicates)
	}
	var still int
	if !waitfor.Try(5*time.Second, func() bool {
		for _, k := range kids[:2] { // the two oldest: stopped (zombies of ours count as gone)
			if running, _ := proc.Running(k.id); running {
				still = k.PID
				g.Check(tree(), grace) // as the supervisor does at each sample
				return false
			}
		}
		return true
	}) {
		t.Fatalf("oldest duplicate %d still runs", still)
	}
	for _, k := range kids[2:] {
		if running, _ := proc.Running(k.id); !running {
			t.Errorf("kept child %d (newest): got stopped, want running", k.PID)
		}
	}
}
