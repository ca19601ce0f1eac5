//go:build linux

// Command lifecycle times a backend's life at the edges, side by side:
//
//   - launch to ready: `run --headless` started -> "backend ready" printed,
//     with the built-in backend behind the watchdog shim and started
//     directly (--no-shim): the shim's overhead;
//   - quit to tree gone: `stop` issued -> last process of the tree (the
//     launcher included) gone, timed from pidfds opened beforehand, for a
//     cooperative backend with 3 plain + 3 setsid children and for one that
//     ignores SIGTERM (it waits out the grace period, -grace).
//
// Usage: go run ./bench/lifecycle [-n 20] [-grace 5s]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/proc"
)

func main() {
	n := flag.Int("n", 20, "runs per case")
	grace := flag.Duration("grace", 5*time.Second, "grace period for the SIGTERM-ignoring case")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-lifecycle-")
	check(err)
	defer os.RemoveAll(dir)
	bin, err := testbin.Build(dir)
	check(err)
	fmt.Printf("launch to ready and quit to tree gone, %d runs each, built-in backend\n\n", *n)
	fmt.Printf("%-52s %10s %10s\n", "case", "p50", "max")
	var shimP50, directP50 time.Duration
	for _, c := range []struct {
		name string
		args []string
	}{
		{"launch to ready, through the watchdog shim", nil},
		{"launch to ready, started directly (--no-shim)", []string{"--no-shim"}},
	} {
		var ds []time.Duration
		for i := 0; i < *n; i++ {
			d, _ := runOnce(bin, dir, c.args, "", nil)
			ds = append(ds, d)
		}
		p50, max := stats(ds)
		if c.args == nil {
			shimP50 = p50
		} else {
			directP50 = p50
		}
		fmt.Printf("%-52s %10s %10s\n", c.name, ms(p50), ms(max))
	}
	fmt.Printf("%-52s %10s\n", "shim overhead at launch (p50 difference)", ms(shimP50-directP50))
	for _, c := range []struct {
		name, backend string
		args          []string
	}{
		{"quit to tree gone, cooperative backend + 3+3 children", " --spawn-children 3 --spawn-setsid-children 3", nil},
		{fmt.Sprintf("quit to tree gone, backend ignoring SIGTERM (grace %v)", *grace), " --ignore-sigterm --spawn-children 3 --spawn-setsid-children 3", []string{"--grace", grace.String()}},
	} {
		var ds []time.Duration
		for i := 0; i < *n; i++ {
			_, q := runOnce(bin, dir, c.args, c.backend, func() {})
			ds = append(ds, q)
		}
		p50, max := stats(ds)
		fmt.Printf("%-52s %10s %10s\n", c.name, ms(p50), ms(max))
	}
}

// runOnce starts a launcher, times it to ready, and when quit is set stops
// it and times the tree's disappearance.
func runOnce(bin, dir string, args []string, backendFlags string, quit func()) (toReady, toGone time.Duration) {
	tag := testbin.NewTag()
	state, err := os.MkdirTemp(dir, "state-")
	check(err)
	env := testbin.NewEnv(tag, filepath.Join(state, "home"))
	argv := append([]string{"run", "--headless", "--state-dir", state, "--no-boot-reap"}, args...)
	if backendFlags != "" {
		argv = append(argv, "--backend-cmd", bin+" serve --host 127.0.0.1 --port 0"+backendFlags)
	}
	cmd := exec.Command(bin, argv...)
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	check(err)
	t0 := time.Now()
	check(cmd.Start())
	defer sweep(tag)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.Contains(sc.Text(), " ready pid=") {
			break
		}
	}
	toReady = time.Since(t0)
	go func() {
		for sc.Scan() {
		}
	}()
	if quit == nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		return toReady, 0
	}
	time.Sleep(300 * time.Millisecond) // children spawned, tree settled
	fds := map[int]int{}
	for _, pid := range testbin.Tagged(tag) {
		if fd, err := unix.PidfdOpen(pid, 0); err == nil {
			fds[pid] = fd
		}
	}
	t1 := time.Now()
	stop := exec.Command(bin, "stop", "--state-dir", state)
	stop.Env = env
	check(stop.Start())
	var last time.Time
	for _, fd := range fds {
		_, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 30000)
		if now := time.Now(); now.After(last) {
			last = now
		}
		unix.Close(fd)
	}
	_ = stop.Wait()
	_ = cmd.Wait()
	return toReady, last.Sub(t1)
}

// sweep kills whatever still carries the run's tag (only what it started).
func sweep(tag string) {
	for _, pid := range testbin.WaitUntagged(tag, 3*time.Second) {
		if id, err := proc.Lookup(pid); err == nil {
			_ = proc.Signal(id, syscall.SIGKILL)
		}
	}
}

func stats(ds []time.Duration) (p50, max time.Duration) {
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)-1]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/1e6) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "lifecycle:", err)
		os.Exit(1)
	}
}
