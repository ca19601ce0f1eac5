//go:build linux

// Command containment measures what the kernel container changes, side by
// side in one run, cgroup next to today's process tree:
//
//   - teardown: the launcher SIGKILLed -> the last process of its backend's
//     tree gone (the shim tears it down: SIGTERM, the grace period, then
//     cgroup.kill or the tree walk), for a tree that exits on SIGTERM and
//     one that ignores it;
//   - boot reap: launcher and shim SIGKILLed together with a 50-process
//     tree left -> the next boot's reap of it (its own elapsed time, and
//     from the new launcher's start until the last leftover is gone);
//   - shim start overhead: starting a backend through the shim (until its
//     report arrives) minus starting it directly, with and without --cgroup;
//   - idle wakeups: context switches per second of the shim and of the
//     launcher (all threads, /proc/PID/task/*/status) over an idle period.
//
// Every process runs in a cgroup of the benchmark's own, removed at the end.
// Exits are timed with pidfds, not by polling the process table.
//
// Usage: go run ./bench/containment [-n 20] [-children 50] [-idle 60s]
package main

import (
	"bufio"
	"context"
	"encoding/json"
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

	"hermes-desktop/backend/model"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/watchdog"
)

// env is what one benchmark run needs.
type env struct {
	bin, dir string
	cg       *cgroup.Cgroup // the benchmark's own
}

func main() {
	n := flag.Int("n", 20, "runs per mode")
	children := flag.Int("children", 50, "processes in the leftover tree of the boot reap runs")
	idle := flag.Duration("idle", 60*time.Second, "idle period for the wakeup figures (0 skips them)")
	only := flag.String("only", "", "run one table only: teardown, reap, start or idle")
	flag.BoolVar(&verbose, "v", false, "print each teardown's shim trace and exits")
	flag.Parse()
	e := setup()
	defer e.cleanup()
	go cleanupOnSignal(e)
	fmt.Printf("%s; every figure from this one run\n\n", testbin.Machine())
	run := func(name string) bool { return *only == "" || *only == name }
	if run("teardown") {
		teardownTable(e, *n)
	}
	if run("reap") {
		reapTable(e, *n, *children)
	}
	if run("start") {
		startTable(e, *n)
	}
	if run("idle") && *idle > 0 {
		idleTable(e, *idle)
	}
}

var verbose bool

func setup() *env {
	dir, err := os.MkdirTemp("", "bench-containment-")
	check(err)
	bin, err := testbin.Build(dir)
	check(err)
	cg, err := testbin.NewCgroup()
	if err != nil {
		os.RemoveAll(dir)
		fmt.Fprintln(os.Stderr, "containment: cgroup v2 not writable here:", err)
		os.Exit(1)
	}
	cleanupOnExit = &env{bin: bin, dir: dir, cg: cg}
	return cleanupOnExit
}

// cleanup kills whatever is left in the benchmark's cgroup (only what it
// started is there) and removes it and the temp dir.
func (e *env) cleanup() {
	_ = e.cg.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = e.cg.WaitEmpty(ctx)
	if err := e.cg.Remove(); err != nil {
		fmt.Fprintln(os.Stderr, "containment:", err)
	}
	os.RemoveAll(e.dir)
}

// launcher is one `run --headless` of the benchmark, born in its cgroup.
type launcher struct {
	cmd   *exec.Cmd
	state string
	tag   string
	out   *bufio.Scanner
	ready time.Time
}

func (e *env) start(state, tag string, args ...string) *launcher {
	argv := append([]string{"run", "--headless", "--state-dir", state, "--min-orphan-age", "1h"}, args...)
	cmd := exec.Command(e.bin, argv...)
	cmd.Env = append(testbin.NewEnv(tag, filepath.Join(state, "home")), watchdog.EnvTrace+"="+filepath.Join(state, "trace"))
	out, err := cmd.StdoutPipe()
	check(err)
	check(testbin.StartIn(cmd, e.cg))
	l := &launcher{cmd: cmd, state: state, tag: tag, out: bufio.NewScanner(out)}
	for l.out.Scan() {
		if strings.Contains(l.out.Text(), " ready pid=") {
			l.ready = time.Now()
			go func() {
				for l.out.Scan() {
				}
			}()
			return l
		}
	}
	check(fmt.Errorf("launcher exited before its backend was ready"))
	return nil
}

func (l *launcher) status(bin string) model.Status {
	out, err := exec.Command(bin, "status", "--json", "--state-dir", l.state).Output()
	check(err)
	var st model.Status
	check(json.Unmarshal(out, &st))
	return st
}

func (l *launcher) stop(bin string) {
	_ = exec.Command(bin, "stop", "--state-dir", l.state).Run()
	_ = l.cmd.Wait()
}

// --- teardown ---------------------------------------------------------------

func teardownTable(e *env, n int) {
	fmt.Printf("launcher SIGKILL -> tree gone (backend + 3 children + 3 setsid children; %d runs each)\n", n)
	fmt.Printf("%-44s %9s %9s %9s %11s\n", "mode", "p50", "p99", "max", "kill->gone")
	modes := []string{"cgroup", "process-tree"}
	for _, tree := range []struct{ name, args, grace string }{
		{"exits on SIGTERM", "", "2s"},
		{"ignores SIGTERM, grace 100ms", " --ignore-sigterm", "100ms"},
	} {
		gone := make([][]time.Duration, len(modes))
		killToGone := make([][]time.Duration, len(modes))
		for i := 0; i < n; i++ {
			for m, mode := range modes { // interleaved: a load change hits both modes alike
				g, k := teardownOnce(e, mode, tree.args, tree.grace)
				gone[m], killToGone[m] = append(gone[m], g), append(killToGone[m], k)
			}
		}
		for m, mode := range modes {
			p50, p99, max := stats(gone[m])
			k50, _, _ := stats(killToGone[m])
			name := fmt.Sprintf("%s, %s", tree.name, mode)
			fmt.Printf("%-44s %9s %9s %9s %11s\n", name, ms(p50), ms(p99), ms(max), ms(k50))
		}
	}
	fmt.Println("gone: the last exit of the tree, the shim's own included (it exits once its tree is empty and the cgroup removed);")
	fmt.Println("kill->gone: p50 from the shim's SIGKILL (its trace) to that last exit; only for trees that ignore SIGTERM")
	fmt.Println()
}

// teardownOnce kills a launcher and times its tree's exits through pidfds.
func teardownOnce(e *env, mode, backendArgs, grace string) (gone, killToGone time.Duration) {
	state, err := os.MkdirTemp(e.dir, "teardown-")
	check(err)
	tag := testbin.NewTag()
	l := e.start(state, tag, "--containment", mode, "--grace", grace, "--backend-cmd",
		e.bin+" serve --host 127.0.0.1 --port 0 --spawn-children 3 --spawn-setsid-children 3"+backendArgs)
	pids := waitTagged(tag, 9, l.cmd.Process.Pid) // launcher, shim, backend, 6 children
	time.Sleep(200 * time.Millisecond)
	fds := testbin.OpenPidfds(pids)
	start := time.Now()
	check(l.cmd.Process.Signal(syscall.SIGKILL))
	exits := testbin.WaitPidfds(fds, 10*time.Second)
	_ = l.cmd.Wait()
	testbin.ClosePidfds(fds)
	last := lastExit(exits, len(fds))
	killed := traceEvent(filepath.Join(state, "trace"), "kill-sent")
	if verbose {
		printRun(mode, start, filepath.Join(state, "trace"), exits)
	}
	gone = last.Sub(start)
	if !killed.IsZero() {
		killToGone = last.Sub(killed)
	}
	sweep(e, tag)
	return gone, killToGone
}

// printRun prints one teardown: the shim's trace events and each exit, in
// milliseconds after the launcher's SIGKILL.
func printRun(mode string, start time.Time, tracePath string, exits map[int]time.Time) {
	type row struct {
		at   time.Duration
		what string
	}
	var rows []row
	data, _ := os.ReadFile(tracePath)
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 3 {
			if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil && time.Unix(0, ns).After(start) {
				rows = append(rows, row{time.Unix(0, ns).Sub(start), "shim: " + strings.Join(f[2:], " ")})
			}
		}
	}
	for pid, at := range exits {
		rows = append(rows, row{at.Sub(start), "exit " + strconv.Itoa(pid)})
	}
	slices.SortFunc(rows, func(a, b row) int { return int(a.at - b.at) })
	fmt.Println("  " + mode + ":")
	for _, r := range rows {
		fmt.Printf("    %8s  %s\n", ms(r.at), r.what)
	}
}

// --- boot reap --------------------------------------------------------------

func reapTable(e *env, n, children int) {
	fmt.Printf("whole-app crash (launcher and shim SIGKILLed) -> the next boot's reap of a %d-process leftover tree (%d runs each)\n", children, n)
	fmt.Printf("%-16s %10s %10s %14s %14s %10s\n", "mode", "reap p50", "reap p99", "boot->gone p50", "boot->gone p99", "survivors")
	modes := []string{"cgroup", "process-tree"}
	reapMS := make([][]time.Duration, len(modes))
	gone := make([][]time.Duration, len(modes))
	survivors := make([]int, len(modes))
	for i := 0; i < n; i++ {
		for m, mode := range modes { // interleaved, as above
			r, g, s := reapOnce(e, mode, children)
			reapMS[m], gone[m], survivors[m] = append(reapMS[m], r), append(gone[m], g), survivors[m]+s
		}
	}
	for m, mode := range modes {
		r50, r99, _ := stats(reapMS[m])
		g50, g99, _ := stats(gone[m])
		fmt.Printf("%-16s %10s %10s %14s %14s %10d\n", mode, ms(r50), ms(r99), ms(g50), ms(g99), survivors[m])
	}
	fmt.Println("reap: the boot reap's own elapsed time (status boot_reap.elapsed_ms); boot->gone: new launcher started -> last leftover exited")
	fmt.Println()
}

// reapOnce crashes a launcher with a tree of children, boots another and
// times the reap of the leftovers.
func reapOnce(e *env, mode string, children int) (reapTime, gone time.Duration, survivors int) {
	state, err := os.MkdirTemp(e.dir, "reap-")
	check(err)
	tag := testbin.NewTag()
	args := []string{"--containment", mode, "--grace", "5s"}
	plain := children / 2
	l1 := e.start(state, tag, append(args, "--backend-cmd", fmt.Sprintf("%s serve --host 127.0.0.1 --port 0 --spawn-children %d --spawn-setsid-children %d",
		e.bin, plain, children-plain))...)
	shim := l1.status(e.bin).Backends[0].ShimPID
	waitTagged(tag, children+3, 0)
	killLauncherAndShim(l1.cmd.Process.Pid, shim)
	_ = l1.cmd.Wait()
	left := waitCount(tag, children) // the backend follows the shim; its children stay
	fds := testbin.OpenPidfds(left)
	start := time.Now()
	l2 := e.start(state, tag, args...)
	exits := testbin.WaitPidfds(fds, 10*time.Second)
	survivors = len(fds) - len(exits)
	testbin.ClosePidfds(fds)
	gone = lastExit(exits, len(fds)).Sub(start)
	if st := l2.status(e.bin); st.BootReap != nil {
		reapTime = time.Duration(st.BootReap.ElapsedMS * float64(time.Millisecond))
	}
	l2.stop(e.bin)
	sweep(e, tag)
	return reapTime, gone, survivors
}

// killLauncherAndShim crashes the whole app at once, as the e2e tests do:
// both frozen, then the shim killed, then the launcher (see
// e2e/reap_linux_test.go for why in that order).
func killLauncherAndShim(launcher, shim int) {
	_ = syscall.Kill(launcher, syscall.SIGSTOP)
	_ = syscall.Kill(shim, syscall.SIGSTOP)
	_ = syscall.Kill(shim, syscall.SIGKILL)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(shim) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break
		}
	}
	_ = syscall.Kill(launcher, syscall.SIGKILL)
}

// --- shim start ---------------------------------------------------------------

func startTable(e *env, n int) {
	fmt.Printf("shim start overhead (%d runs each): backend started through the shim (report received) minus started directly\n", n*5)
	fmt.Printf("%-30s %9s %9s %12s %11s %11s %11s\n", "how", "p50", "p99", "overhead p50", "exec->main", "->released", "->started")
	var direct []time.Duration
	for i := 0; i < n*5; i++ {
		direct = append(direct, startDirect(e))
	}
	d50, d99, _ := stats(direct)
	fmt.Printf("%-30s %9s %9s %12s\n", "direct (fork+exec)", ms(d50), ms(d99), "-")
	for _, withCgroup := range []bool{false, true} {
		var via []time.Duration
		var phases [3][]time.Duration
		for i := 0; i < n*5; i++ {
			d, p := startViaShim(e, withCgroup)
			via = append(via, d)
			for j := range p {
				phases[j] = append(phases[j], p[j])
			}
		}
		v50, v99, _ := stats(via)
		name := "through the shim"
		if withCgroup {
			name += " + --cgroup"
		}
		m, _, _ := stats(phases[0])
		r, _, _ := stats(phases[1])
		s, _, _ := stats(phases[2])
		fmt.Printf("%-30s %9s %9s %12s %11s %11s %11s\n", name, ms(v50), ms(v99), ms(v50-d50), ms(m), ms(r), ms(s))
	}
	fmt.Println("phases (p50, from the shim's trace): exec -> its main() (process start, Go runtime, package inits),")
	fmt.Println("-> start barrier released (flags, fds, signals, subreaper), -> backend started and reported (cgroup, fork+exec)")
	fmt.Println()
}

func startDirect(e *env) time.Duration {
	cmd := exec.Command("sleep", "60")
	start := time.Now()
	check(testbin.StartIn(cmd, e.cg))
	d := time.Since(start)
	_ = cmd.Process.Kill() // ours
	_ = cmd.Wait()
	return d
}

// startViaShim starts `sleep 60` through the shim and times it until the
// report, with the phases the shim traces.
func startViaShim(e *env, withCgroup bool) (time.Duration, [3]time.Duration) {
	lifeR, lifeW, _ := os.Pipe()
	repR, repW, _ := os.Pipe()
	o := watchdog.ShimOptions{Lifeline: watchdog.LifelineFD, Report: watchdog.ReportFD, Grace: time.Second, Argv: []string{"sleep", "60"}}
	if withCgroup {
		o.Cgroup = "hermes-backend-" + strings.Repeat("0", 16) + testbin.NewTag()
	}
	cmd := exec.Command(e.bin, append([]string{watchdog.Subcommand}, o.Args()...)...)
	cmd.ExtraFiles = watchdog.ShimFiles(lifeR, repW)
	tracePath := filepath.Join(e.dir, "start-trace")
	os.Remove(tracePath)
	cmd.Env = append(os.Environ(), watchdog.EnvTrace+"="+tracePath)
	start := time.Now()
	check(testbin.StartIn(cmd, e.cg))
	lifeR.Close()
	repW.Close()
	_, _ = lifeW.WriteString(watchdog.FormatStart())
	rep, err := watchdog.ReadReport(repR)
	d := time.Since(start)
	check(err)
	if withCgroup && rep.Cgroup == "" {
		check(fmt.Errorf("no cgroup: %s", rep.CgroupError))
	}
	lifeW.Close() // the shim tears the backend down
	repR.Close()
	_ = cmd.Wait()
	main := traceEvent(tracePath, "shim-main")
	released := traceEvent(tracePath, "released")
	started := traceEvent(tracePath, "backend-started")
	return d, [3]time.Duration{main.Sub(start), released.Sub(main), started.Sub(released)}
}

// --- idle ---------------------------------------------------------------------

func idleTable(e *env, idle time.Duration) {
	state, err := os.MkdirTemp(e.dir, "idle-")
	check(err)
	tag := testbin.NewTag()
	l := e.start(state, tag, "--backend-cmd", e.bin+" serve --host 127.0.0.1 --port 0")
	defer func() { l.stop(e.bin); sweep(e, tag) }()
	shim := l.status(e.bin).Backends[0].ShimPID
	time.Sleep(2 * time.Second) // start-up settles
	s0, l0 := switches(shim), switches(l.cmd.Process.Pid)
	half := time.Now().Add(idle / 2)
	time.Sleep(time.Until(half))
	sh, lh := switches(shim), switches(l.cmd.Process.Pid)
	time.Sleep(idle / 2)
	s1, l1 := switches(shim), switches(l.cmd.Process.Pid)
	secs := idle.Seconds()
	fmt.Printf("idle wakeups over %v (context switches, all threads; the launcher samples the tree every second for 30 s after ready, then every 5 s)\n", idle)
	fmt.Printf("  shim:     %5d in all = %.2f/s   (first half %d, second half %d)\n", s1-s0, float64(s1-s0)/secs, sh-s0, s1-sh)
	fmt.Printf("  launcher: %5d in all = %.2f/s   (first half %d, second half %d)\n", l1-l0, float64(l1-l0)/secs, lh-l0, l1-lh)
}

// switches sums voluntary and involuntary context switches over every
// thread of pid.
func switches(pid int) int {
	tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	n := 0
	for _, task := range tasks {
		data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/status")
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				c, _ := strconv.Atoi(strings.TrimSpace(v))
				n += c
			}
		}
	}
	return n
}
