//go:build linux

package main

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
)

// waitTagged waits until n processes carry tag and returns them, without
// the launcher (0: keep all).
func waitTagged(tag string, n, launcher int) []int {
	deadline := time.Now().Add(15 * time.Second)
	for {
		pids := testbin.Tagged(tag)
		if len(pids) >= n || time.Now().After(deadline) {
			return slices.DeleteFunc(pids, func(p int) bool { return p == launcher })
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitCount waits until exactly n processes carry tag (the others exited).
func waitCount(tag string, n int) []int {
	deadline := time.Now().Add(15 * time.Second)
	for {
		pids := testbin.Tagged(tag)
		if len(pids) == n || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lastExit is the latest exit, or far in the future when some process
// never exited.
func lastExit(exits map[int]time.Time, want int) time.Time {
	if len(exits) < want {
		return time.Now().Add(1 << 50)
	}
	var last time.Time
	for _, at := range exits {
		if at.After(last) {
			last = at
		}
	}
	return last
}

// traceEvent returns when the shim traced event ("kill-sent"), or zero.
func traceEvent(path, event string) time.Time {
	data, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[2] == event {
			if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				return time.Unix(0, ns)
			}
		}
	}
	return time.Time{}
}

// sweep kills whatever of a run is left: only what it started carries its
// tag (and the benchmark's cgroup holds the rest until the end).
func sweep(e *env, tag string) {
	for _, pid := range testbin.WaitUntagged(tag, 2*time.Second) {
		if id, err := proc.Lookup(pid); err == nil {
			_ = proc.Signal(id, syscall.SIGKILL)
		}
	}
	names, _ := e.cg.Children()
	for _, name := range names { // empty backend cgroups a crashed run left
		if cg, err := cgroup.Open(e.cg.Path() + "/" + name); err == nil {
			if populated, _ := cg.Populated(); !populated {
				_ = cg.Remove()
			}
		}
	}
}

func stats(ds []time.Duration) (p50, p99, max time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	idx := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))+0.999)-1)] }
	return idx(0.5), idx(0.99), s[len(s)-1]
}

func ms(d time.Duration) string {
	if d > time.Hour {
		return "-"
	}
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}

// cleanupOnSignal removes the benchmark's cgroup and files when it is
// interrupted, or when its output pipe closes (head(1)): SIGPIPE is caught
// so that a write fails instead of killing the benchmark first.
func cleanupOnSignal(e *env) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	<-c
	e.cleanup()
	os.Exit(1)
}

var cleanupOnExit *env

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "containment:", err)
		if cleanupOnExit != nil {
			cleanupOnExit.cleanup()
		}
		os.Exit(1)
	}
}
