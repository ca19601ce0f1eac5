package leakguard

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// backendProc is the sampled backend itself, first in every sample.
func backendProc(fds int, rss int64) TreeProc {
	return TreeProc{PID: 100, Argv: []string{"hermes", "serve"}, FDs: fds, RSSBytes: rss}
}

// copies returns n descendants with one command line.
func copies(n int, argv ...string) []TreeProc {
	var ps []TreeProc
	for i := range n {
		ps = append(ps, TreeProc{PID: 200 + i, PPID: 100, Argv: argv})
	}
	return ps
}

// sampleAt is sampleOf taken at a given time.
func sampleAt(at time.Time, nofile int64, procs ...TreeProc) *TreeSample {
	s := sampleOf(nofile, procs...)
	s.SampledAt = at
	return s
}

func kindsOf(ws []TreeWarning) []string {
	var ks []string
	for _, w := range ws {
		ks = append(ks, w.Kind)
	}
	return ks
}

func TestCheckFDPressure(t *testing.T) {
	cases := []struct {
		name        string
		restartOn   bool
		nofile      int64
		backendFDs  int
		childFDs    int
		wantWarn    bool
		wantRestart bool
	}{
		{"below 80%", true, 1000, 799, 0, false, false},
		{"at 80% warns", false, 1000, 800, 0, true, false},
		{"a child at 80% warns", false, 1000, 10, 800, true, false},
		{"94% with the policy warns only", true, 1000, 940, 0, true, false},
		{"95% with the policy restarts", true, 1000, 950, 0, true, true},
		{"a child at 95% with the policy restarts", true, 1000, 10, 960, true, true},
		{"99% without the policy warns only", false, 1000, 990, 0, true, false},
		{"unknown limit: no warning", true, 0, 5000, 0, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := testGuard(Config{RestartOnFDPressure: tc.restartOn})
			child := TreeProc{PID: 101, PPID: 100, Argv: []string{"mcp"}, FDs: tc.childFDs}
			s := sampleOf(tc.nofile, backendProc(tc.backendFDs, 0), child)
			restart := g.Check(s, time.Second)
			warned := len(s.Warnings) == 1 && s.Warnings[0].Kind == WarnFDPressure
			if warned != tc.wantWarn || (!tc.wantWarn && len(s.Warnings) != 0) {
				t.Errorf("warnings: got %v, want fd-pressure %v", kindsOf(s.Warnings), tc.wantWarn)
			}
			if got := restart != ""; got != tc.wantRestart {
				t.Errorf("restart: got %q, want one %v", restart, tc.wantRestart)
			}
			if tc.wantRestart && !strings.Contains(restart, "file descriptors") {
				t.Errorf("restart reason: got %q, want it to name file descriptors", restart)
			}
		})
	}
}

func TestCheckDuplicates(t *testing.T) {
	cases := []struct {
		name   string
		warnAt int // Config.DuplicateWarn; 0: the default, 3
		copies int
		want   bool
	}{
		{"two copies", 0, 2, false},
		{"three copies: at the default threshold", 0, 3, false},
		{"four copies: over the default threshold", 0, 4, true},
		{"five copies with threshold 5", 5, 5, false},
		{"six copies with threshold 5", 5, 6, true},
		{"two copies with threshold 1", 1, 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := testGuard(Config{DuplicateWarn: tc.warnAt})
			procs := append([]TreeProc{backendProc(0, 0)}, copies(tc.copies, "mimir", "--db", "x")...)
			procs = append(procs, TreeProc{PID: 300, PPID: 100, Argv: []string{"node", "other.js"}})
			s := sampleOf(0, procs...)
			if restart := g.Check(s, time.Second); restart != "" {
				t.Errorf("restart: got %q, want none (no duplicate policy restarts)", restart)
			}
			warned := len(s.Warnings) == 1 && s.Warnings[0].Kind == WarnDuplicates
			if warned != tc.want || (!tc.want && len(s.Warnings) != 0) {
				t.Errorf("warnings: got %v, want duplicates %v", kindsOf(s.Warnings), tc.want)
			}
			if tc.want && !strings.Contains(s.Warnings[0].Message, fmt.Sprintf("%d copies", tc.copies)) {
				t.Errorf("message: got %q, want it to count %d copies", s.Warnings[0].Message, tc.copies)
			}
		})
	}
}

func TestCheckRSSGrowth(t *testing.T) {
	const mib = 1 << 20
	type point struct {
		after time.Duration // since the first sample
		rss   int64
	}
	cases := []struct {
		name   string
		points []point
		want   bool // a warning at the last point
	}{
		{"steady", []point{{0, 200 * mib}, {time.Minute, 200 * mib}}, false},
		{"grows by the threshold exactly", []point{{0, 200 * mib}, {time.Minute, 300 * mib}}, false},
		{"grows past the threshold within the window", []point{{0, 200 * mib}, {5 * time.Minute, 301 * mib}}, true},
		{"grows past it at the window's edge", []point{{0, 200 * mib}, {10 * time.Minute, 400 * mib}}, true},
		{"grows past it outside the window", []point{{0, 200 * mib}, {11 * time.Minute, 400 * mib}}, false},
		{"slow growth, each step in the window small", []point{
			{0, 100 * mib}, {6 * time.Minute, 160 * mib}, {12 * time.Minute, 220 * mib}, {18 * time.Minute, 280 * mib},
		}, false},
		{"growth from the window's low, not its first point", []point{
			{0, 400 * mib}, {2 * time.Minute, 150 * mib}, {4 * time.Minute, 260 * mib},
		}, true},
		{"shrinking", []point{{0, 500 * mib}, {time.Minute, 100 * mib}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := testGuard(Config{RSSGrowthWarn: 100 * mib, RSSWindow: 10 * time.Minute})
			t0 := time.Now()
			var s *TreeSample
			for _, p := range tc.points {
				s = sampleAt(t0.Add(p.after), 0, backendProc(0, p.rss))
				g.Check(s, time.Second)
			}
			warned := len(s.Warnings) == 1 && s.Warnings[0].Kind == WarnRSSGrowth
			if warned != tc.want || (!tc.want && len(s.Warnings) != 0) {
				t.Errorf("warnings: got %v, want rss-growth %v", kindsOf(s.Warnings), tc.want)
			}
		})
	}
}

func TestCheckRSSGrowthForgottenOnReset(t *testing.T) {
	g, _ := testGuard(Config{RSSGrowthWarn: 100 << 20, RSSWindow: 10 * time.Minute})
	t0 := time.Now()
	g.Check(sampleAt(t0, 0, backendProc(0, 100<<20)), time.Second)
	g.Reset() // a new instance: its memory is not the old one's growth
	s := sampleAt(t0.Add(time.Minute), 0, backendProc(0, 500<<20))
	g.Check(s, time.Second)
	if len(s.Warnings) != 0 {
		t.Errorf("warnings after Reset: got %v, want none", kindsOf(s.Warnings))
	}
}

// TestCheckLogsOncePerEpisode checks what the callback gets: one line when
// an episode starts, none while it lasts, a new one after it cleared.
func TestCheckLogsOncePerEpisode(t *testing.T) {
	fd := func(pid, fds int) TreeProc { return TreeProc{PID: pid, PPID: 100, Argv: []string{"mcp"}, FDs: fds} }
	cases := []struct {
		name  string
		steps [][]TreeProc // descendants per sample (nofile 1000, backend idle)
		want  []int        // lines the callback has after each step
	}{
		{"one long episode", [][]TreeProc{{fd(1, 850)}, {fd(1, 900)}, {fd(1, 870)}}, []int{1, 1, 1}},
		{"cleared, then again", [][]TreeProc{{fd(1, 850)}, {fd(1, 850)}, {fd(1, 100)}, {fd(1, 100)}, {fd(1, 850)}}, []int{1, 1, 1, 1, 2}},
		{"two processes, two episodes", [][]TreeProc{{fd(1, 850)}, {fd(1, 850), fd(2, 850)}, {fd(1, 850), fd(2, 850)}}, []int{1, 2, 2}},
		{"one ends while the other lasts", [][]TreeProc{{fd(1, 850), fd(2, 850)}, {fd(2, 850)}, {fd(1, 850), fd(2, 850)}}, []int{2, 2, 3}},
		{"duplicates: one episode while the count changes", [][]TreeProc{copies(4, "mcp", "-x"), copies(6, "mcp", "-x"), copies(2, "mcp", "-x"), copies(5, "mcp", "-x")}, []int{1, 1, 1, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, lines := testGuard(Config{})
			for i, kids := range tc.steps {
				g.Check(sampleOf(1000, append([]TreeProc{backendProc(0, 0)}, kids...)...), time.Second)
				if got := len(*lines); got != tc.want[i] {
					t.Fatalf("step %d: got %d lines, want %d: %q", i, got, tc.want[i], *lines)
				}
			}
			for _, l := range *lines {
				if !strings.HasPrefix(l, "warning: ") {
					t.Errorf("line: got %q, want a warning", l)
				}
			}
		})
	}
}

func TestCheckResetStartsNewEpisodes(t *testing.T) {
	g, lines := testGuard(Config{})
	high := TreeProc{PID: 1, PPID: 100, Argv: []string{"mcp"}, FDs: 900}
	g.Check(sampleOf(1000, backendProc(0, 0), high), time.Second)
	g.Reset()
	g.Check(sampleOf(1000, backendProc(0, 0), high), time.Second)
	if got := len(*lines); got != 2 {
		t.Errorf("lines: got %d, want 2 (a new instance's warning is a new episode): %q", got, *lines)
	}
}

func TestConfigDefaults(t *testing.T) {
	got := Config{}.WithDefaults()
	want := Config{SampleInterval: 5 * time.Second, DuplicateWarn: 3, RSSGrowthWarn: 512 << 20,
		RSSWindow: 10 * time.Minute, NofileSoftLimit: 4096}
	if got != want {
		t.Errorf("defaults: got %+v, want %+v", got, want)
	}
	off := Config{SampleInterval: -1, NofileSoftLimit: -1}.WithDefaults()
	if off.SampleInterval != -1 || off.NofileSoftLimit != -1 {
		t.Errorf("negative (off) values: got %+v, want them kept", off)
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		cfg  Config
		fail bool
	}{
		{Config{}, false},
		{Config{SampleInterval: -1}, false},
		{Config{SampleInterval: 100 * time.Millisecond}, false},
		{Config{SampleInterval: 99 * time.Millisecond}, true},
		{Config{MaxDuplicateChildren: -1}, true},
	}
	for _, tc := range cases {
		if err := tc.cfg.Validate(); (err != nil) != tc.fail {
			t.Errorf("Validate(%+v): got %v, want an error %v", tc.cfg, err, tc.fail)
		}
	}
}
