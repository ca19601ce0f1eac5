//go:build linux

// Command reapscan times the boot reaper's scan on a busy process table,
// side by side in one run with `ps -A -o pid=,ppid=,args=` and with a
// gopsutil full scan (the per-process approach the reaper avoids).
//
// It starts -extra unrelated processes (sleep) and -candidates serve-shaped
// ones, then times each method -runs times and prints medians and ratios.
// Everything it starts carries a random tag and is killed at the end.
//
// Usage: go run ./bench/reapscan [-extra 2000] [-candidates 10] [-runs 10]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/shirou/gopsutil/v4/process"

	"hermes-desktop/backend/reap"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

func main() {
	extra := flag.Int("extra", 2000, "unrelated processes to add")
	candidates := flag.Int("candidates", 10, "serve-shaped processes to add")
	runs := flag.Int("runs", 10, "timed runs per method")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-reapscan-")
	check(err)
	defer os.RemoveAll(dir)
	bin, err := testbin.Build(dir)
	check(err)
	tag := testbin.NewTag()
	env := testbin.NewEnv(tag, filepath.Join(dir, "home"))
	var cmds []*exec.Cmd
	defer func() { stopAll(cmds, tag) }()
	start := func(argv ...string) {
		c := exec.Command(argv[0], argv[1:]...)
		c.Env = env
		check(c.Start())
		cmds = append(cmds, c)
	}
	for i := 0; i < *extra; i++ {
		start("sleep", "600")
	}
	for i := 0; i < *candidates; i++ {
		// A shell whose argv has the desktop serve shape: a real candidate
		// that the rules then spare (its parent, this program, is alive).
		start("sh", "-c", "sleep 600", "serve", "--host", "127.0.0.1", "--port", "0")
	}
	time.Sleep(time.Second)
	pids, _ := proc.PIDs()
	state := filepath.Join(dir, "state")
	check(lockfile.EnsureDir(state))
	fmt.Printf("reap scan with %d processes in the table (%d added: %d unrelated, %d serve-shaped), %d runs each\n",
		len(pids), *extra+*candidates, *extra, *candidates, *runs)
	fmt.Printf("%s\n\n", testbin.Machine())
	timeMethods(scanMethods(bin, dir, state, env), *runs)
}

// scanMethods are the ways of scanning the table, ours first: the reaper
// in-process and through its CLI, ps, and gopsutil reading every process.
func scanMethods(bin, home, state string, env []string) []method {
	return []method{
		{"hermes-desktop reap (in-process dry run)", func() int {
			r, err := reap.Run(context.Background(), reap.Options{StateDir: state, HermesHome: home, DryRun: true})
			check(err)
			return len(r.Decisions)
		}},
		{"hermes-desktop reap --dry-run (CLI, incl. exec)", func() int {
			c := exec.Command(bin, "reap", "--dry-run", "--json", "--state-dir", state)
			c.Env = env
			check(c.Run())
			return -1
		}},
		{"ps -A -o pid=,ppid=,args=", func() int {
			out, err := exec.Command("ps", "-A", "-o", "pid=,ppid=,args=").Output()
			check(err)
			return len(out)
		}},
		{"gopsutil full scan (cmdline, ppid, create time)", func() int {
			ps, err := process.Processes()
			check(err)
			for _, p := range ps {
				_, _ = p.CmdlineSlice()
				_, _ = p.Ppid()
				_, _ = p.CreateTime()
			}
			return len(ps)
		}},
	}
}

// method is one way of scanning the table.
type method struct {
	name string
	run  func() int
}

// timeMethods runs each method runs times and prints its median next to
// the first method's.
func timeMethods(methods []method, runs int) {
	fmt.Printf("%-50s %12s %12s\n", "method", "median", "vs ours")
	var ours time.Duration
	for _, m := range methods {
		var ds []time.Duration
		for i := 0; i < runs; i++ {
			t0 := time.Now()
			m.run()
			ds = append(ds, time.Since(t0))
		}
		slices.Sort(ds)
		med := ds[len(ds)/2]
		if ours == 0 {
			ours = med
		}
		fmt.Printf("%-50s %10.1fms %11.1fx\n", m.name, float64(med)/1e6, float64(med)/float64(ours))
	}
}

// stopAll kills what this run started: its own children, then anything
// still carrying its tag.
func stopAll(cmds []*exec.Cmd, tag string) {
	for _, c := range cmds {
		_ = c.Process.Signal(syscall.SIGKILL)
	}
	for _, c := range cmds {
		_ = c.Wait()
	}
	for _, pid := range testbin.Tagged(tag) {
		if id, err := proc.Lookup(pid); err == nil {
			_ = proc.Signal(id, syscall.SIGKILL)
		}
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "reapscan:", err)
		os.Exit(1)
	}
}
