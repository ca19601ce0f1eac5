//go:build linux

// Command sampler measures what the leak guard's tree sampler costs per
// tick for a backend with many children, and what that is as CPU at the
// sampling interval.
//
// The tree is a shell with -children sleep children (plain and setsid'd,
// like MCP servers); it is killed at the end.
//
// Usage: go run ./bench/sampler [-children 100] [-ticks 200] [-interval 5s]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/internal/proc"
)

func main() {
	children := flag.Int("children", 100, "children under the backend")
	ticks := flag.Int("ticks", 200, "samples to time")
	interval := flag.Duration("interval", leakguard.DefaultSampleInterval, "sampling interval to express the cost against")
	flag.Parse()
	script := "for i in $(seq 1 " + strconv.Itoa(*children/2) + "); do sleep 600 & setsid sleep 600 & done; wait"
	cmd := exec.Command("sh", "-c", script)
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	root, err := proc.Lookup(cmd.Process.Pid)
	if err != nil {
		_ = cmd.Process.Kill()
		fail(err)
	}
	cleanup = func() { stop(cmd, root) }
	defer cleanup()
	var s *leakguard.TreeSample
	for deadline := time.Now().Add(30 * time.Second); ; {
		if s, err = leakguard.Sample(root, ""); err == nil && s.Count >= *children+1 {
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
		if _, err := leakguard.Sample(root, ""); err != nil {
			fail(err)
		}
		ds = append(ds, time.Since(t0))
	}
	var cpu1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &cpu1)
	slices.Sort(ds)
	med := ds[len(ds)/2]
	cpuPerTick := (time.Duration(cpu1.Utime.Nano()+cpu1.Stime.Nano()) - time.Duration(cpu0.Utime.Nano()+cpu0.Stime.Nano())) / time.Duration(*ticks)
	fmt.Printf("tree sampler: 1 backend + %d children (%d processes sampled), %d ticks\n", *children, s.Count, *ticks)
	fmt.Printf("  wall per tick: median %d µs, p90 %d µs\n", med.Microseconds(), ds[len(ds)*9/10].Microseconds())
	fmt.Printf("  CPU per tick:  %d µs\n", cpuPerTick.Microseconds())
	fmt.Printf("  at one tick every %v: %.3f%% of one core\n", *interval, 100*float64(cpuPerTick)/float64(*interval))
}

// stop kills the tree this program started: the shell and its children,
// each by the identity the walk read.
func stop(cmd *exec.Cmd, root proc.Identity) {
	if kids, err := proc.DescendantsOf(root.PID); err == nil {
		for _, k := range kids {
			_ = proc.Signal(k.Identity(), syscall.SIGKILL)
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

// cleanup ends the tree; fail runs it too, since os.Exit skips defers.
var cleanup = func() {}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sampler:", err)
	cleanup()
	os.Exit(1)
}
