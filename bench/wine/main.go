//go:build linux

// Command wine measures how long a backend tree outlives a killed launcher
// on Windows (the Windows build under Wine, where the kill-on-close job
// takes the tree) next to Linux (the shim's lifeline), side by side in one
// run, with the same tree: the built-in backend and 2 children that left
// its process group (setsid on Linux, a new console group on Windows).
//
// Modes:
//   - Linux: `hermes-desktop run --headless`, SIGKILL;
//   - Wine, SIGKILL of the launcher's Wine process (the crash Wine sees);
//   - Wine, TerminateProcess of the launcher (taskkill /F, as Task Manager).
//
// Every Windows process under Wine is a Linux process, so each exit is
// timed from a pidfd, as on Linux: no polling of the process table. For
// TerminateProcess the clock starts when the launcher's process is gone
// (taskkill's own start-up under Wine is not the tree's time).
//
// Run by bench/wine/run.sh, which makes the prefix and builds the exe.
// Usage: go run ./bench/wine -exe PATH [-n 20]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"hermes-desktop/internal/testbin"
)

const (
	children = " --spawn-setsid-children 2"
)

// mode is one way to run and kill a launcher.
type mode struct {
	name string
	// treeSize is the tree's processes, the launcher included: 5 (launcher,
	// shim, backend, 2 children), and under Wine a conhost.exe for each
	// windowless console, the shim's and the backend's.
	treeSize int
	// home is HERMES_HOME as the launcher reads paths.
	home func(dir string) string
	// start returns the launcher's command for the state dir and tag.
	start func(state string) *exec.Cmd
	// kill kills the launcher; it returns when the clock starts.
	kill func(cmd *exec.Cmd, winPID int) time.Time
}

type sample struct {
	gone      time.Duration // clock start -> last of the tree gone; -1: some survived
	survivors int
	watched   int
}

func main() {
	exe := flag.String("exe", "", "the Windows build (Linux path)")
	n := flag.Int("n", 20, "kills per mode")
	wait := flag.Duration("wait", 10*time.Second, "how long to wait for a tree to disappear")
	flag.Parse()
	if *exe == "" || os.Getenv("WINEPREFIX") == "" {
		fmt.Fprintln(os.Stderr, "wine: run by bench/wine/run.sh (needs -exe and WINEPREFIX)")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "bench-wine-")
	check(err)
	tmpDir = dir
	defer os.RemoveAll(dir)
	bin, err := testbin.Build(dir)
	check(err)
	win := testbin.WinPath(*exe)

	modes := killModes(bin, win)
	fmt.Printf("launcher killed -> tree gone: %d kills per mode, tree = launcher, shim, backend, 2 children out of its group\n", *n)
	fmt.Println("(under Wine also a conhost.exe for each windowless console, the shim's and the backend's)")
	fmt.Printf("%s, %s\n\n", testbin.Machine(), wineVersion())
	fmt.Printf("%-44s %9s %9s %9s %10s\n", "mode", "p50", "p99", "max", "survivors")
	for _, m := range modes {
		var samples []sample
		for i := 0; i < *n; i++ {
			s, err := measure(dir, m, *wait)
			check(err)
			samples = append(samples, s)
		}
		p50, p99, max, surv, watched := summarize(samples)
		fmt.Printf("%-44s %9s %9s %9s %10s\n", m.name, testbin.FormatDuration(p50), testbin.FormatDuration(p99), testbin.FormatDuration(max), fmt.Sprintf("%d/%d", surv, watched))
	}
	fmt.Println("\np50/p99/max: the launcher killed (for TerminateProcess: its process gone) -> last process of its tree gone")
	fmt.Println("('-': some never went within", wait.String()+"); survivors: tree processes still alive then")
}

// killModes are the ways a launcher dies that the benchmark compares: the
// Linux build SIGKILLed, the Windows build under Wine SIGKILLed, and the
// Windows build ended by TerminateProcess.
func killModes(bin, win string) []mode {
	linux := func(state string) *exec.Cmd {
		return exec.Command(bin, "run", "--headless", "--state-dir", state, "--grace", "2s",
			"--backend-cmd", bin+" serve --host 127.0.0.1 --port 0"+children)
	}
	wine := func(state string) *exec.Cmd {
		return exec.Command(testbin.WineLoader, win, "run", "--headless", "--state-dir", testbin.WinPath(state), "--grace", "2s",
			"--backend-cmd", win+" serve --host 127.0.0.1 --port 0"+children)
	}
	sigkill := func(cmd *exec.Cmd, _ int) time.Time {
		start := time.Now()
		_ = cmd.Process.Signal(syscall.SIGKILL)
		return start
	}
	terminate := func(cmd *exec.Cmd, winPID int) time.Time {
		fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
		check(err)
		defer unix.Close(fd)
		tk := exec.Command(testbin.WineLoader, "taskkill", "/F", "/PID", strconv.Itoa(winPID))
		check(tk.Start())
		gone := testbin.WaitPidfds(map[int]int{0: fd}, 30*time.Second)
		_ = tk.Wait()
		return gone[0]
	}
	linuxPath := func(p string) string { return p }
	return []mode{
		{"Linux: shim lifeline, SIGKILL", 5, linuxPath, linux, sigkill},
		{"Wine: job, SIGKILL of the Wine process", 7, testbin.WinPath, wine, sigkill},
		{"Wine: job, TerminateProcess (taskkill /F)", 7, testbin.WinPath, wine, terminate},
	}
}

// measure runs one launcher, kills it and times the tree's exits.
func measure(dir string, m mode, wait time.Duration) (sample, error) {
	tag := testbin.NewTag()
	state, err := os.MkdirTemp(dir, "state-")
	if err != nil {
		return sample{}, err
	}
	cmd := m.start(state)
	cmd.Env = testbin.NewEnv(tag, m.home(filepath.Join(state, "home")))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return sample{}, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	defer func() { _ = cmd.Wait(); testbin.SweepTagged(tag) }()
	if err := testbin.WaitReadyLine(out); err != nil {
		_ = cmd.Process.Kill()
		return sample{}, err
	}
	pids := testbin.WaitTree(tag, m.treeSize, cmd.Process.Pid, 20*time.Second)
	winPID := windowsPID(cmd, state)
	time.Sleep(300 * time.Millisecond) // a steady tree, not the start-up bustle
	fds := testbin.OpenPidfds(pids)
	defer testbin.ClosePidfds(fds)
	start := m.kill(cmd, winPID)
	gone := testbin.WaitPidfds(fds, wait)
	s := sample{gone: -1, watched: len(fds)}
	if len(gone) == len(fds) {
		var last time.Time
		for _, at := range gone {
			last = later(last, at)
		}
		s.gone = max(last.Sub(start), 0)
	}
	s.survivors = len(fds) - len(gone)
	return s, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// windowsPID is the launcher's PID as Windows knows it, which taskkill
// takes: under Wine, `status --json` answers with it.
func windowsPID(cmd *exec.Cmd, state string) int {
	if !strings.HasSuffix(cmd.Path, "wine64") {
		return cmd.Process.Pid
	}
	st := exec.Command(testbin.WineLoader, cmd.Args[1], "status", "--json", "--state-dir", testbin.WinPath(state))
	st.Env = cmd.Env
	out, err := st.Output()
	check(err)
	const key = `"instance":{"pid":`
	i := strings.Index(string(out), key)
	if i < 0 {
		check(fmt.Errorf("status --json has no instance pid: %s", out))
	}
	rest := string(out[i+len(key):])
	pid, err := strconv.Atoi(rest[:strings.IndexAny(rest, ",}")])
	check(err)
	return pid
}

func wineVersion() string {
	out, err := exec.Command(testbin.WineLoader, "--version").Output()
	if err != nil {
		return "wine: " + err.Error()
	}
	return strings.TrimSpace(string(out))
}

func summarize(samples []sample) (p50, p99, max time.Duration, survivors, watched int) {
	var ds []time.Duration
	for _, s := range samples {
		survivors += s.survivors
		watched += s.watched
		d := s.gone
		if d < 0 {
			d = testbin.Never
		}
		ds = append(ds, d)
	}
	p50, p99, max = testbin.Quantiles(ds)
	return p50, p99, max, survivors, watched
}

// check aborts the benchmark; main's deferred cleanup does not run after
// os.Exit, so the temp dir goes first.
func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "wine:", err)
		if tmpDir != "" {
			os.RemoveAll(tmpDir)
		}
		os.Exit(1)
	}
}

var tmpDir string // removed on exit
