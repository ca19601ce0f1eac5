//go:build linux

// Command sampler measures what the leak guard's tree sampler costs per
// tick for a backend with many children, and what that is as CPU at the
// sampling interval.
//
// The tree is a shell with -children sleep children (plain and setsid'd,
// like MCP servers); it is killed at the end. With -cgroup it starts in a
// cgroup of its own, created under this program's and removed at the end,
// and the sampler reads the members from it, as the launcher does wherever
// it may create cgroups (root here).
//
// Usage: go run ./bench/sampler [-children 100] [-ticks 200] [-interval 5s] [-cgroup]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/internal/proc"
)

func main() {
	children := flag.Int("children", 100, "children under the backend")
	ticks := flag.Int("ticks", 200, "samples to time")
	interval := flag.Duration("interval", leakguard.DefaultSampleInterval, "sampling interval to express the cost against")
	inCgroup := flag.Bool("cgroup", false, "start the tree in a cgroup of its own and sample its members")
	flag.Parse()
	script := "for i in $(seq 1 " + strconv.Itoa(*children/2) + "); do sleep 600 & setsid sleep 600 & done; wait"
	cmd := exec.Command("sh", "-c", script)
	cg, cgPath := (*proc.Cgroup)(nil), ""
	if *inCgroup {
		var err error
		if cg, err = newCgroup(cmd); err != nil {
			fail(err)
		}
		cgPath = cg.Path()
	}
	err := cmd.Start()
	if cg != nil {
		_ = unix.Close(cmd.SysProcAttr.CgroupFD)
	}
	if err != nil {
		removeCgroup(cg)
		fail(err)
	}
	root, err := proc.Lookup(cmd.Process.Pid)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		removeCgroup(cg)
		fail(err)
	}
	cleanup = func() { stop(cmd, root, cg) }
	defer cleanup()
	var s *leakguard.TreeSample
	for deadline := time.Now().Add(30 * time.Second); ; {
		if s, err = leakguard.Sample(root, cgPath); err == nil && s.Count >= *children+1 {
			break
		}
		if time.Now().After(deadline) {
			fail(fmt.Errorf("the tree never reached %d processes", *children+1))
		}
		time.Sleep(50 * time.Millisecond)
	}
	var ds []time.Duration
	var cpu0 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &cpu0)
	for i := 0; i < *ticks; i++ {
		t0 := time.Now()
		if _, err := leakguard.Sample(root, cgPath); err != nil {
			fail(err)
		}
		ds = append(ds, time.Since(t0))
	}
	var cpu1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &cpu1)
	slices.Sort(ds)
	med := ds[len(ds)/2]
	cpuPerTick := (time.Duration(cpu1.Utime.Nano()+cpu1.Stime.Nano()) - time.Duration(cpu0.Utime.Nano()+cpu0.Stime.Nano())) / time.Duration(*ticks)
	from := "the process tree"
	if cg != nil {
		from = "cgroup " + cgPath
	}
	fmt.Printf("tree sampler: 1 backend + %d children (%d processes sampled, from %s), %d ticks\n", *children, s.Count, from, *ticks)
	fmt.Printf("  wall per tick: median %d µs, p90 %d µs\n", med.Microseconds(), ds[len(ds)*9/10].Microseconds())
	fmt.Printf("  CPU per tick:  %d µs\n", cpuPerTick.Microseconds())
	fmt.Printf("  at one tick every %v: %.3f%% of one core\n", *interval, 100*float64(cpuPerTick)/float64(*interval))
}

// stop kills the tree this program started: the shell and its children,
// each by the identity the walk read; with a cgroup, the whole cgroup,
// which it then removes.
func stop(cmd *exec.Cmd, root proc.Identity, cg *proc.Cgroup) {
	if cg != nil {
		_ = cg.Kill()
	} else if kids, err := proc.DescendantsOf(root.PID); err == nil {
		for _, k := range kids {
			_ = proc.Signal(k.Identity(), syscall.SIGKILL)
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	removeCgroup(cg)
}

// newCgroup creates a cgroup for the tree under this program's own and
// makes cmd start inside it.
func newCgroup(cmd *exec.Cmd) (*proc.Cgroup, error) {
	own, err := proc.OwnCgroup()
	if err != nil {
		return nil, err
	}
	cg, err := proc.CreateCgroup(path.Join(own, "hermes-bench-sampler-"+strconv.Itoa(os.Getpid())))
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

func removeCgroup(cg *proc.Cgroup) {
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
