package leakguard

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// countingReads returns readers for a Sampler that count their calls and
// answer from argv and nofile.
func countingReads(argv map[int][]string, nofile *uint64, nofileErr *error) (func(int) ([]string, error), func(int) (uint64, error), *int, *int) {
	var argvReads, nofileReads int
	readArgv := func(pid int) ([]string, error) {
		argvReads++
		return argv[pid], nil
	}
	readNofile := func(int) (uint64, error) {
		nofileReads++
		return *nofile, *nofileErr
	}
	return readArgv, readNofile, &argvReads, &nofileReads
}

func TestSamplerReadsACommandLineAgainOnlyWhenItMayHaveChanged(t *testing.T) {
	var nofile uint64
	var nofileErr error
	readArgv, _, reads, _ := countingReads(map[int][]string{7: {"node", "mcp.js"}}, &nofile, &nofileErr)
	sm := &Sampler{readArgv: readArgv}
	t0 := time.Now()
	p := proc.Process{PID: 7, Start: "linux:100", Comm: "node"}
	steps := []struct {
		name  string
		p     proc.Process
		at    time.Time
		reads int
	}{
		{"first seen", p, t0, 1},
		{"same process, 5 s on", p, t0.Add(5 * time.Second), 1},
		{"exec changed its name", proc.Process{PID: 7, Start: "linux:100", Comm: "python3"}, t0.Add(10 * time.Second), 2},
		{"a minute after the last read", proc.Process{PID: 7, Start: "linux:100", Comm: "python3"}, t0.Add(10*time.Second + argvMaxAge), 3},
		{"the PID names another process", proc.Process{PID: 7, Start: "linux:999", Comm: "python3"}, t0.Add(11*time.Second + argvMaxAge), 4},
	}
	for _, st := range steps {
		seen := map[int]seenArgv{}
		got := sm.argvOf(st.p, st.at, seen)
		sm.argv = seen
		if *reads != st.reads {
			t.Errorf("%s: got %d reads in all, want %d", st.name, *reads, st.reads)
		}
		if !slices.Equal(got, []string{"node", "mcp.js"}) {
			t.Errorf("%s: got argv %q", st.name, got)
		}
	}
}

// Duplicates are judged on command lines read in the sample that judges
// them: a process that exec'd into something else since its line was read
// is no duplicate, and the guard must not stop it as one.
func TestSamplerRereadsDuplicatesBeforeTheyAreJudged(t *testing.T) {
	var nofile uint64
	var nofileErr error
	readArgv, _, reads, _ := countingReads(map[int][]string{11: {"mcp"}, 12: {"other", "--serve"}}, &nofile, &nofileErr)
	t0 := time.Now()
	sm := &Sampler{readArgv: readArgv, argv: map[int]seenArgv{
		11: {start: "linux:1", comm: "mcp", argv: []string{"mcp"}, read: t0.Add(-30 * time.Second)},
		12: {start: "linux:2", comm: "mcp", argv: []string{"mcp"}, read: t0.Add(-30 * time.Second)},
	}}
	s := sampleOf(0, TreeProc{PID: 10, Argv: []string{"hermes"}}, TreeProc{PID: 11, Argv: []string{"mcp"}}, TreeProc{PID: 12, Argv: []string{"mcp"}})
	if len(s.Duplicates) != 1 {
		t.Fatalf("setup: got %d duplicate groups, want 1", len(s.Duplicates))
	}
	sm.rereadDuplicates(s, t0)
	if len(s.Duplicates) != 0 {
		t.Errorf("got duplicates %+v after reading the lines again, want none", s.Duplicates)
	}
	if !slices.Equal(s.Processes[2].Argv, []string{"other", "--serve"}) {
		t.Errorf("got argv %q for 12, want what it runs now", s.Processes[2].Argv)
	}
	if *reads != 2 {
		t.Errorf("got %d reads, want 2 (each member of the group once)", *reads)
	}
}

func TestSamplerReadsTheOpenFileLimitAgainWhenItMatters(t *testing.T) {
	nofile := uint64(1000)
	var nofileErr error
	_, readNofile, _, reads := countingReads(nil, &nofile, &nofileErr)
	sm := &Sampler{readNofile: readNofile}
	backend := proc.Identity{PID: 10, Start: "linux:5"}
	quiet := []TreeProc{{PID: 10, FDs: 100}}
	t0 := time.Now()
	steps := []struct {
		name    string
		backend proc.Identity
		at      time.Time
		procs   []TreeProc
		change  func()
		reads   int
		soft    int64
	}{
		{"first sample", backend, t0, quiet, nil, 1, 1000},
		{"5 s on, far from the limit", backend, t0.Add(5 * time.Second), quiet, func() { nofile = 4096 }, 1, 1000},
		{"a process nears the limit remembered", backend, t0.Add(10 * time.Second), []TreeProc{{PID: 10, FDs: 850}}, nil, 2, 4096},
		{"a minute after the last read", backend, t0.Add(10*time.Second + nofileMaxAge), quiet, func() { nofile = 2048 }, 3, 2048},
		{"another backend", proc.Identity{PID: 10, Start: "linux:6"}, t0.Add(11*time.Second + nofileMaxAge), quiet, func() { nofile = 512 }, 4, 512},
		{"unreadable: not remembered", backend, t0.Add(12*time.Second + nofileMaxAge), quiet, func() { nofileErr = errors.New("gone") }, 5, 0},
		{"so asked again next time", backend, t0.Add(13*time.Second + nofileMaxAge), quiet, func() { nofileErr = nil }, 6, 512},
	}
	for _, st := range steps {
		if st.change != nil {
			st.change()
		}
		got := sm.nofileOf(st.backend, st.at, st.procs)
		if *reads != st.reads || got != st.soft {
			t.Errorf("%s: got limit %d after %d reads, want %d after %d", st.name, got, *reads, st.soft, st.reads)
		}
	}
}

// A real tree, sampled twice by one Sampler: the second sample reads no
// command line and no limit again, and says the same.
func TestSamplerSamplesARealTree(t *testing.T) {
	var out io.ReadCloser
	cmd := startHelper(t, &out, "parent")
	// Sampled before both sleepers have exec'd, one could still be a copy
	// of the parent, which the Sampler notices only when the name (comm)
	// changes: not here, where both run the test binary.
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the parent helper: got %q (%v), want ready", line, err)
	}
	root, err := proc.Lookup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // before startHelper's: the sleepers first, found by identity
		if kids, err := proc.DescendantsOf(root.PID); err == nil {
			for _, k := range kids {
				_ = proc.Signal(k.Identity(), syscall.SIGKILL)
			}
		}
	})
	var argvReads, nofileReads int
	sm := &Sampler{
		readArgv:   func(pid int) ([]string, error) { argvReads++; return proc.Cmdline(pid) },
		readNofile: func(pid int) (uint64, error) { nofileReads++; return nofileSoft(pid) },
	}
	// The process table may take a moment to show both.
	twoSleepers := func(s *TreeSample) bool {
		if s.Count != 3 || len(s.Duplicates) != 1 || s.Duplicates[0].Count != 2 {
			return false
		}
		argv := s.Duplicates[0].Argv
		return len(argv) > 0 && argv[len(argv)-1] == sleeperArg
	}
	var first *TreeSample
	if !waitfor.Try(10*time.Second, func() bool {
		first, err = sm.Sample(root, "")
		return err == nil && twoSleepers(first)
	}) {
		t.Fatalf("the tree never showed a parent and two sleepers: %+v, %v", first, err)
	}
	argvReads, nofileReads = 0, 0
	second, err := sm.Sample(root, "")
	if err != nil {
		t.Fatal(err)
	}
	// The two sleepers are duplicates, so their lines are read again; the
	// parent's is not, nor the limit.
	if argvReads != 2 || nofileReads != 0 {
		t.Errorf("second sample: got %d command line and %d limit reads, want 2 and 0", argvReads, nofileReads)
	}
	if second.Count != first.Count || len(second.Duplicates) != 1 || second.NofileSoft != first.NofileSoft {
		t.Errorf("second sample %+v differs from the first %+v", second, first)
	}
	if (second.NofileSoft != 0) != hasNofileLimit {
		t.Errorf("open-file limit: got %d, want one: %v", second.NofileSoft, hasNofileLimit)
	}
}
