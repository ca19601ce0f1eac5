//go:build linux

// Command sampler measures what the leak guard's tree sampler costs per
// tick for a backend with many children, and what that is as CPU at the
// sampling interval.
//
// The tree is a shell with -children sleep children (plain and setsid'd,
// like MCP servers); it is killed at the end. Each tick times two reads of
// it, interleaved so that both see the same machine: a fresh Sample, which
// reads everything, and one long-lived Sampler, which remembers command
// lines and the open-file limit as the supervisor's does. Identical
// children are all duplicates, which the Sampler reads fresh every time
// (the worst case for it); -distinct gives each its own command line, as
// distinct MCP servers have. With -cgroup it starts in a
// cgroup of its own, created under this program's and removed at the end,
// and the sampler reads the members from it, as the launcher does wherever
// it may create cgroups (root here).
//
// Usage: go run ./bench/sampler [-children 100] [-ticks 200] [-interval 5s] [-cgroup] [-distinct]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
)

// options are the command line's flags.
type options struct {
	children, ticks    int
	interval           time.Duration
	inCgroup, distinct bool
}

func main() {
	var o options
	flag.IntVar(&o.children, "children", 100, "children under the backend")
	flag.IntVar(&o.ticks, "ticks", 200, "samples to time")
	flag.DurationVar(&o.interval, "interval", leakguard.DefaultSampleInterval, "sampling interval to express the cost against")
	flag.BoolVar(&o.inCgroup, "cgroup", false, "start the tree in a cgroup of its own and sample its members")
	flag.BoolVar(&o.distinct, "distinct", false, "give each child a command line of its own (sleep 600.<i>, 601.<i>)")
	flag.Parse()
	t := startTree(o)
	cleanup = t.stop
	defer cleanup()
	s := t.awaitExec(o)
	fresh, remembering := t.timeSamplers(o.ticks)
	report(o, t, s, fresh, remembering)
}

// tree is the backend stand-in this program started: a shell with its
// sleep children, in cgroup cg (at cgPath) when -cgroup is given.
type tree struct {
	cmd    *exec.Cmd
	root   proc.Identity
	cg     *cgroup.Cgroup
	cgPath string
}

// startTree starts the shell that starts the children.
func startTree(o options) *tree {
	plain, setsid := "600", "600"
	if o.distinct {
		plain, setsid = "600.$i", "601.$i"
	}
	script := "for i in $(seq 1 " + strconv.Itoa(o.children/2) + "); do sleep " + plain + " & setsid sleep " + setsid + " & done; wait"
	t := &tree{cmd: exec.Command("sh", "-c", script)}
	if o.inCgroup {
		var err error
		if t.cg, err = newCgroup(t.cmd); err != nil {
			fail(err)
		}
		t.cgPath = t.cg.Path()
	}
	err := t.cmd.Start()
	if t.cg != nil {
		_ = unix.Close(t.cmd.SysProcAttr.CgroupFD)
	}
	if err != nil {
		removeCgroup(t.cg)
		fail(err)
	}
	if t.root, err = proc.Lookup(t.cmd.Process.Pid); err != nil {
		_ = t.cmd.Process.Kill()
		_ = t.cmd.Wait()
		removeCgroup(t.cg)
		fail(err)
	}
	return t
}

// awaitExec returns the first sample in which every child runs sleep:
// until it execs, a child is a copy of the shell.
func (t *tree) awaitExec(o options) *leakguard.TreeSample {
	execd := func(s *leakguard.TreeSample) bool {
		if s.Count < o.children+1 {
			return false
		}
		if o.distinct {
			return len(s.Duplicates) == 0
		}
		return len(s.Duplicates) == 1 && s.Duplicates[0].Count == o.children
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		if s, err := leakguard.Sample(t.root, t.cgPath); err == nil && execd(s) {
			return s
		}
		if time.Now().After(deadline) {
			fail(fmt.Errorf("the tree never reached %d processes running sleep", o.children+1))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// timeSamplers times ticks fresh Samples and ticks of one Sampler,
// interleaved.
func (t *tree) timeSamplers(ticks int) (fresh, remembering *timings) {
	// Per-thread CPU, so the goroutine stays on one thread.
	runtime.LockOSThread()
	fresh, remembering = &timings{name: "Sample (reads everything)"}, &timings{name: "Sampler (remembers)"}
	sm := new(leakguard.Sampler)
	if _, err := sm.Sample(t.root, t.cgPath); err != nil { // its first sample reads everything
		fail(err)
	}
	for i := 0; i < ticks; i++ {
		fresh.time(func() (*leakguard.TreeSample, error) { return leakguard.Sample(t.root, t.cgPath) })
		remembering.time(func() (*leakguard.TreeSample, error) { return sm.Sample(t.root, t.cgPath) })
	}
	return fresh, remembering
}

// report prints the two ways' wall and CPU times, and their ratio.
func report(o options, t *tree, s *leakguard.TreeSample, fresh, remembering *timings) {
	from := "the process tree"
	if t.cg != nil {
		from = "cgroup " + t.cgPath
	}
	kind := "identical"
	if o.distinct {
		kind = "distinct"
	}
	fmt.Printf("tree sampler: 1 backend + %d children with %s command lines (%d processes sampled, from %s), %d ticks each, interleaved\n\n",
		o.children, kind, s.Count, from, o.ticks)
	fmt.Printf("%-28s %12s %12s %12s %16s\n", "", "wall p50 µs", "wall p90 µs", "CPU/tick µs", "% core at "+o.interval.String())
	for _, tm := range []*timings{fresh, remembering} {
		slices.Sort(tm.wall)
		cpu := tm.cpu / time.Duration(o.ticks)
		fmt.Printf("%-28s %12d %12d %12d %15.3f%%\n", tm.name, tm.wall[len(tm.wall)/2].Microseconds(), tm.wall[len(tm.wall)*9/10].Microseconds(),
			cpu.Microseconds(), 100*float64(cpu)/float64(o.interval))
	}
	fmt.Printf("\nSampler / Sample, CPU per tick: %.2fx\n", float64(remembering.cpu)/float64(fresh.cpu))
}

// timings collects one way of sampling's wall time per tick and its CPU
// time in all.
type timings struct {
	name string
	wall []time.Duration
	cpu  time.Duration
}

func (t *timings) time(sample func() (*leakguard.TreeSample, error)) {
	c0, t0 := threadCPU(), time.Now()
	if _, err := sample(); err != nil {
		fail(err)
	}
	t.wall = append(t.wall, time.Since(t0))
	t.cpu += threadCPU() - c0
}

func threadCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		fail(fmt.Errorf("getrusage: %w", err))
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stop kills the tree this program started: the shell and its children,
// each by the identity the walk read; with a cgroup, the whole cgroup,
// which it then removes.
func (t *tree) stop() {
	if t.cg != nil {
		_ = t.cg.Kill()
	} else if kids, err := proc.DescendantsOf(t.root.PID); err == nil {
		for _, k := range kids {
			_ = proc.Signal(k.Identity(), syscall.SIGKILL)
		}
	}
	_ = t.cmd.Process.Kill()
	_ = t.cmd.Wait()
	removeCgroup(t.cg)
}

// newCgroup creates a cgroup for the tree under this program's own and
// makes cmd start inside it.
func newCgroup(cmd *exec.Cmd) (*cgroup.Cgroup, error) {
	own, err := cgroup.Own()
	if err != nil {
		return nil, err
	}
	cg, err := cgroup.Create(path.Join(own, "hermes-bench-sampler-"+strconv.Itoa(os.Getpid())))
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if _, err := cg.SpawnAttr(cmd.SysProcAttr); err != nil {
		removeCgroup(cg)
		return nil, err
	}
	return cg, nil
}

func removeCgroup(cg *cgroup.Cgroup) {
	if cg == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = cg.WaitEmpty(ctx)
	if err := cg.Remove(); err != nil {
		fmt.Fprintln(os.Stderr, "sampler:", err)
	}
}

// cleanup ends the tree; fail runs it too, since os.Exit skips defers.
var cleanup = func() {}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sampler:", err)
	cleanup()
	os.Exit(1)
}
