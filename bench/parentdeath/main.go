//go:build linux

// Command parentdeath measures how long a backend tree outlives a launcher
// killed with SIGKILL, side by side in one run:
//
//   - hermes-desktop: the watchdog shim sees lifeline EOF and tears the tree
//     down (SIGTERM to the group and every setsid'd descendant);
//   - a 2 s parent poll, the Hermes watchdog: the backend polls getppid()
//     and exits, its children are left behind;
//   - no watchdog (go-plugin, Ollama): nothing notices;
//   - the floor: the same tree without launcher or shim, every process
//     SIGTERMed at once by the bench: what the tree's own death takes.
//
// Each run starts `hermes-desktop run --headless` with the built-in backend
// and 3 plain + 3 setsid children, opens a pidfd on every process of the
// tree, SIGKILLs the launcher and timestamps each exit from its pidfd: no
// polling of the process table, so the figures are the tree's, not ours.
// It also prints the shim's and launcher's idle RSS and CPU time.
//
// Usage: go run ./bench/parentdeath [-n 20] [-idle 60s] [-modes floor,shim,poll,none]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"hermes-desktop/internal/testbin"
	"hermes-desktop/watchdog"
)

type mode struct {
	name        string
	launcherArg []string
	backendArg  string
	treeSize    int // processes in the tree, the launcher included
	// floor: no launcher and no shim; the bench itself sends SIGTERM to
	// every process of the backend's tree at once, through the pidfds it
	// holds: how long the tree takes to die with a perfect watchdog.
	floor bool
}

type sample struct {
	backendGone time.Duration // -1: survived
	lastGone    time.Duration // -1: something survived
	survivors   int
	watched     int // tree processes (launcher excluded) timed
	// From the shim's trace: kill -> parent death seen, and -> SIGTERM sent.
	detected, termSent time.Duration
}

const children = " --spawn-children 3 --spawn-setsid-children 3"

// settle is how long a tree runs before the launcher is killed.
const settle = 300 * time.Millisecond

var (
	verbose bool
	names   map[int]string // command lines of the current run's tree, for -v
)

func main() {
	n := flag.Int("n", 20, "SIGKILLs per mode")
	idle := flag.Duration("idle", 60*time.Second, "idle period for the RSS/CPU figures (0 skips it)")
	wait := flag.Duration("wait", 5*time.Second, "how long to wait for a tree to disappear")
	flag.BoolVar(&verbose, "v", false, "print each process's exit time for every run")
	only := flag.String("modes", "floor,shim,poll,none", "which modes to run, comma-separated: the tree's own death, the shim, the 2 s parent poll, no watchdog")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-parentdeath-")
	check(err)
	tmpDir = dir
	defer os.RemoveAll(dir)
	bin, err := testbin.Build(dir)
	check(err)

	modes := pickModes(*only)
	fmt.Printf("parent death -> tree gone: %d SIGKILLs of the launcher per mode, tree = backend + 3 plain + 3 setsid children\n", *n)
	fmt.Printf("%s\n\n", testbin.Machine())
	fmt.Printf("%-40s %9s %9s %9s %10s %11s %10s %10s\n", "mode", "p50", "p99", "max", "survivors", "backend p50", "detect p50", "TERM p50")
	for _, m := range modes {
		runMode(bin, dir, m, *n, *wait)
	}
	fmt.Println("\np50/p99/max: launcher SIGKILLed -> last process of its tree gone ('-': some never went, within", wait.String()+")")
	fmt.Println("survivors: tree processes still alive then; detect/TERM: when the shim saw the death and sent SIGTERM (shim only)")
	fmt.Println("floor: the backend's tree without launcher or shim, SIGTERMed at once by this bench: p50/p99 from that SIGTERM")
	if *idle > 0 {
		idleCost(bin, dir, *idle)
	}
}

// pickModes is the modes -modes names, in its order.
func pickModes(only string) []mode {
	all := map[string]mode{
		"floor": {name: "floor: the tree SIGTERMed at once", treeSize: 7, floor: true},
		"shim":  {"hermes-desktop shim (lifeline + pidfd)", nil, "", 9, false},
		"poll":  {"2 s parent poll (Hermes watchdog)", []string{"--no-shim"}, " --parent-poll 2s", 8, false},
		"none":  {"no watchdog (go-plugin, Ollama)", []string{"--no-shim"}, " --no-parent-watch", 8, false},
	}
	var modes []mode
	for _, name := range strings.Split(only, ",") {
		m, ok := all[strings.TrimSpace(name)]
		if !ok {
			fmt.Fprintf(os.Stderr, "parentdeath: unknown mode %q (floor, shim, poll, none)\n", name)
			os.Exit(2)
		}
		modes = append(modes, m)
	}
	return modes
}

// runMode measures mode m n times and prints its row.
func runMode(bin, dir string, m mode, n int, wait time.Duration) {
	var samples []sample
	for i := 0; i < n; i++ {
		measureMode := measure
		if m.floor {
			measureMode = measureFloor
		}
		s, err := measureMode(bin, dir, m, wait)
		check(err)
		samples = append(samples, s)
	}
	p50, p99, max, surv, watched := summarize(samples, func(s sample) time.Duration { return s.lastGone })
	bp50, _, _, _, _ := summarize(samples, func(s sample) time.Duration { return s.backendGone })
	dp50, _, _, _, _ := summarize(samples, func(s sample) time.Duration { return s.detected })
	tp50, _, _, _, _ := summarize(samples, func(s sample) time.Duration { return s.termSent })
	fmt.Printf("%-40s %9s %9s %9s %10s %11s %10s %10s\n", m.name, testbin.FormatDuration(p50), testbin.FormatDuration(p99), testbin.FormatDuration(max),
		fmt.Sprintf("%d/%d", surv, watched), testbin.FormatDuration(bp50), testbin.FormatDuration(dp50), testbin.FormatDuration(tp50))
}

// measure runs one launcher, kills it and times the tree's exits.
func measure(bin, dir string, m mode, wait time.Duration) (sample, error) {
	tag := testbin.NewTag()
	state, err := os.MkdirTemp(dir, "state-")
	if err != nil {
		return sample{}, err
	}
	tracePath := filepath.Join(state, "trace")
	cmd, err := startLauncher(bin, state, tracePath, tag, m)
	if err != nil {
		return sample{}, err
	}
	pids := testbin.WaitTree(tag, m.treeSize, cmd.Process.Pid, 10*time.Second)
	backendPID := findBackend(pids)
	time.Sleep(settle) // measure a steady tree, not the start-up bustle
	fds := pinTree(pids)
	launcherFD, _ := unix.PidfdOpen(cmd.Process.Pid, 0)
	names[-1] = "(launcher)"
	start := time.Now()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	fds[-1] = launcherFD
	gone := testbin.WaitPidfds(fds, wait)
	_ = cmd.Wait()
	s := sample{backendGone: -1, lastGone: -1, detected: -1, termSent: -1}
	readTrace(tracePath, start, &s)
	if at, ok := gone[backendPID]; ok {
		s.backendGone = at.Sub(start)
	}
	if verbose {
		printExits(start, fds, gone)
	}
	delete(fds, -1)
	delete(gone, -1)
	unix.Close(launcherFD)
	tallyExits(&s, start, fds, gone)
	testbin.SweepTagged(tag)
	return s, nil
}

// measureFloor starts the backend's tree alone, sends SIGTERM to each of
// its processes back to back and times their exits: what the tree's own
// death takes, with no detection and no signalling of ours in it.
func measureFloor(bin, dir string, m mode, wait time.Duration) (sample, error) {
	tag := testbin.NewTag()
	state, err := os.MkdirTemp(dir, "floor-")
	if err != nil {
		return sample{}, err
	}
	argv := strings.Fields("serve --host 127.0.0.1 --port 0" + children)
	cmd := exec.Command(bin, argv...)
	cmd.Env = testbin.NewEnv(tag, filepath.Join(state, "home"))
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	pids := testbin.WaitTree(tag, m.treeSize, 0, 10*time.Second)
	time.Sleep(settle)
	fds := pinTree(pids)
	start := time.Now()
	for _, fd := range fds {
		_ = unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0) // ours: started just now
	}
	gone := testbin.WaitPidfds(fds, wait)
	_ = cmd.Wait()
	s := sample{backendGone: -1, lastGone: -1, detected: -1, termSent: -1}
	if at, ok := gone[cmd.Process.Pid]; ok {
		s.backendGone = at.Sub(start)
	}
	if verbose {
		printExits(start, fds, gone)
	}
	tallyExits(&s, start, fds, gone)
	testbin.SweepTagged(tag)
	return s, nil
}

// startLauncher starts a headless launcher in mode m on state dir state,
// with the shim tracing to tracePath, and waits for its ready line.
func startLauncher(bin, state, tracePath, tag string, m mode) (*exec.Cmd, error) {
	args := append([]string{"run", "--headless", "--state-dir", state, "--grace", "2s",
		"--backend-cmd", bin + " serve --host 127.0.0.1 --port 0" + children + m.backendArg}, m.launcherArg...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(testbin.NewEnv(tag, filepath.Join(state, "home")), watchdog.EnvTrace+"="+tracePath)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	if err := testbin.WaitReadyLine(out); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	return cmd, nil
}

// pinTree opens a pidfd on each process of the tree, so its exit is seen
// even once its PID is reused, and notes its command line in names.
func pinTree(pids []int) map[int]int {
	fds := map[int]int{}
	names = map[int]string{}
	for _, pid := range pids {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		names[pid] = strings.Join(strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")[1:], " ")
		if fd, err := unix.PidfdOpen(pid, 0); err == nil {
			fds[pid] = fd
		}
	}
	return fds
}

// tallyExits notes in s when the last process of the tree went (if all
// did) and how many survived, which it kills; it closes the pidfds.
func tallyExits(s *sample, start time.Time, fds map[int]int, gone map[int]time.Time) {
	s.watched = len(fds)
	if len(gone) == len(fds) {
		var last time.Time
		for _, at := range gone {
			if at.After(last) {
				last = at
			}
		}
		s.lastGone = last.Sub(start)
	}
	for pid, fd := range fds {
		if _, ok := gone[pid]; !ok {
			s.survivors++
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) // ours: started by this run
		}
		unix.Close(fd)
	}
}

func findBackend(pids []int) int {
	for _, pid := range pids {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		// The shim's command line names the backend's after "--".
		if strings.Contains(string(b), "serve\x00--host") && !strings.Contains(string(b), "\x00watchdog\x00") {
			return pid
		}
	}
	return 0
}

func summarize(samples []sample, f func(sample) time.Duration) (p50, p99, max time.Duration, survivors, watched int) {
	var ds []time.Duration
	for _, s := range samples {
		survivors += s.survivors
		watched += s.watched
		d := f(s)
		if d < 0 {
			d = testbin.Never
		}
		ds = append(ds, d)
	}
	p50, p99, max = testbin.Quantiles(ds)
	return p50, p99, max, survivors, watched
}

// idleCost starts one launcher and reports the shim's and the launcher's RSS
// and CPU time over an idle period.
func idleCost(bin, dir string, idle time.Duration) {
	tag := testbin.NewTag()
	state, _ := os.MkdirTemp(dir, "idle-")
	cmd := exec.Command(bin, "run", "--headless", "--state-dir", state)
	cmd.Env = testbin.NewEnv(tag, filepath.Join(state, "home"))
	out, _ := cmd.StdoutPipe()
	check(cmd.Start())
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait(); testbin.SweepTagged(tag) }()
	check(testbin.WaitReadyLine(out))
	pids := testbin.WaitTree(tag, 3, cmd.Process.Pid, 10*time.Second)
	shim := 0
	for _, pid := range pids {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if strings.Contains(string(b), "\x00watchdog\x00") {
			shim = pid
		}
	}
	time.Sleep(2 * time.Second) // let start-up settle
	s0, l0 := cpuTicks(shim), cpuTicks(cmd.Process.Pid)
	time.Sleep(idle)
	s1, l1 := cpuTicks(shim), cpuTicks(cmd.Process.Pid)
	fmt.Printf("\nidle cost over %v:\n", idle)
	fmt.Printf("  shim:     RSS %s, CPU %.2fs\n", rss(shim), float64(s1-s0)/100)
	fmt.Printf("  launcher: RSS %s, CPU %.2fs\n", rss(cmd.Process.Pid), float64(l1-l0)/100)
}

func cpuTicks(pid int) int64 {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

func rss(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// check aborts the benchmark; main's deferred cleanup does not run after
// os.Exit, so the temp dir goes first.
func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "parentdeath:", err)
		if tmpDir != "" {
			os.RemoveAll(tmpDir)
		}
		os.Exit(1)
	}
}

var tmpDir string // removed on exit

func printExits(start time.Time, fds map[int]int, gone map[int]time.Time) {
	type row struct {
		at   time.Duration
		what string
	}
	var rows []row
	for pid := range fds {
		what := names[pid]
		at, ok := gone[pid]
		if !ok {
			rows = append(rows, row{1 << 62, what + " (survived)"})
			continue
		}
		rows = append(rows, row{at.Sub(start), what})
	}
	slices.SortFunc(rows, func(a, b row) int { return int(a.at - b.at) })
	for _, r := range rows {
		fmt.Printf("    %8s  %.60s\n", testbin.FormatDuration(r.at), r.what)
	}
	fmt.Println()
}

// readTrace fills the shim's detection and signalling times from its trace.
func readTrace(path string, start time.Time, s *sample) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		at := time.Unix(0, ns).Sub(start)
		switch f[2] {
		case "parent-gone":
			s.detected = at
		case "term-sent":
			s.termSent = at
		}
	}
}
