//go:build linux

// Command remote times backends on another host over ssh (issue 25),
// against a real OpenSSH server on loopback (internal/sshtest: Debian's
// sshd, a throwaway key, the "remote" is this machine), side by side:
//
//   - connect -> ready: `run --headless` started -> "backend ready" for a
//     serve backend on the ssh host, the same backend started locally, and
//     a raw `ssh -F cfg sshtest true` on a fresh connection;
//   - authentications per connect (sshd's "Accepted publickey") for 1 and
//     for 3 backends on one host;
//   - app SIGKILL -> remote tree gone: the remote backend and its remote
//     watchdog, timed from pidfds (the remote is this machine);
//   - partition -> teardown: the app's ssh ControlMaster SIGSTOPped, until
//     the remote backend is gone, against the disconnect grace;
//   - reattach after a blip: the master SIGSTOPped for a while under the
//     grace, then SIGCONT, until the status shows the backend connected
//     with the same remote PID and its local URL answers;
//   - sampling cost on the remote: the remote core's CPU per minute with
//     a 20-process tree sampled every 5 s, every hour and every second
//     (sampling.go).
//
// The first remote connect uploads the core; it is shown on its own and
// left out of the connect figures. Every process started (sshd, apps,
// remote sessions) is stopped at the end, on failure too.
//
// Usage: go run ./bench/remote [-n 10] [-faults 5] [-partition-grace 3s] [-sample-window 1m]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/coretest"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/internal/testbin"
)

type bench struct {
	tb     *benchTB
	srv    *sshtest.Server
	bin    string
	cores  string
	root   string
	notes  []string       // what misbehaved, printed after the tables, in order
	counts map[string]int // how often each note was seen
	argv   string         // the remote backend's command line, as run
}

func main() {
	n := flag.Int("n", 10, "runs of each connect case and of the SIGKILL case")
	faults := flag.Int("faults", 5, "runs of each partition and blip case")
	partitionGrace := flag.Duration("partition-grace", 3*time.Second, "disconnect grace for the partition case")
	blipGrace := flag.Duration("blip-grace", 5*time.Second, "disconnect grace for the blip cases")
	blips := flag.String("blips", "1s,3s", "blip lengths (comma-separated), each under -blip-grace")
	flag.DurationVar(&sampleWindow, "sample-window", time.Minute, "how long the sampling cost is measured at each interval")
	flag.Parse()
	var blipDs []time.Duration
	for _, s := range strings.Split(*blips, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d >= *blipGrace {
			fmt.Fprintf(os.Stderr, "remote: bad blip %q (a duration under -blip-grace %v)\n", s, *blipGrace)
			os.Exit(2)
		}
		blipDs = append(blipDs, d)
	}

	tb := &benchTB{}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		fmt.Fprintln(os.Stderr, "remote: interrupted, cleaning up")
		tb.runCleanups()
		os.Exit(130)
	}()
	code := 0
	func() {
		defer func() {
			if r := recover(); r != nil {
				if f, ok := r.(fatal); ok {
					fmt.Fprintln(os.Stderr, "remote:", f.msg)
				} else {
					fmt.Fprintln(os.Stderr, "remote: panic:", r)
				}
				code = 1
			}
		}()
		run(tb, *n, *faults, *partitionGrace, *blipGrace, blipDs)
	}()
	tb.runCleanups()
	if tb.Failed() && code == 0 {
		code = 1
	}
	os.Exit(code)
}

func run(tb *benchTB, n, faults int, partitionGrace, blipGrace time.Duration, blips []time.Duration) {
	e := &bench{tb: tb, counts: map[string]int{}}
	e.root = tb.TempDir()
	bin, err := testbin.Build(e.root)
	check(tb, err)
	e.bin = bin
	e.srv = sshtest.Start(tb)
	e.cores = coretest.Dir(tb, bin)
	// Registered after sshtest's own cleanup, so it runs before it: the
	// apps go before the server does.
	tb.Cleanup(func() {
		appsMu.Lock()
		defer appsMu.Unlock()
		closing = true
		for _, a := range apps {
			a.stop()
		}
	})

	fmt.Printf("remote backends over ssh (issue 25): a real sshd on loopback (%s), the built-in serve backend\n", sshVersion())
	fmt.Printf("%d runs per connect and SIGKILL case, %d per partition and blip case\n\n", n, faults)
	e.connect(n)
	fmt.Println()
	e.authentications()
	fmt.Println()
	e.sigkill(n)
	fmt.Println()
	e.partition(faults, partitionGrace)
	fmt.Println()
	e.blip(faults, blipGrace, blips)
	fmt.Println()
	e.samplingCost(sampleWindow)
	if e.argv != "" {
		fmt.Printf("\nthe remote backend ran as: %s\n", e.argv)
	}
	if len(e.notes) > 0 {
		fmt.Println()
		fmt.Println("misbehaviour seen:")
		for _, s := range e.notes {
			fmt.Printf("  - %s (%d times)\n", s, e.counts[s])
		}
	}
}

const readyWait = 60 * time.Second

// sampleWindow is how long the sampling cost is measured (-sample-window).
var sampleWindow time.Duration

func remoteServe(name string) settings.Backend {
	return settings.Backend{Name: name, Kind: settings.KindServe, Host: sshtest.Alias}
}

// note records a misbehaviour for the report and says it on stderr.
func (e *bench) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	fmt.Fprintln(os.Stderr, "remote: note:", s)
	if e.counts[s] == 0 {
		e.notes = append(e.notes, s)
	}
	e.counts[s]++
}

// finish stops a and notes what it or the remote left behind.
func (e *bench) finish(what string, a *app) {
	if left := a.stop(); len(left) > 0 {
		e.note("%s: %d local processes of the app left after it ended (killed): %v", what, len(left), left)
	}
	if left := e.srv.WaitClean(10 * time.Second); len(left) > 0 {
		e.note("%s: left on the remote 10s after the app ended: %v", what, left)
		for _, p := range left {
			if !strings.HasPrefix(p.Args, "sshd") {
				_ = sendSignal(p.PID, syscall.SIGKILL)
			}
		}
	}
}

// connect: `run` -> ready, remote vs local vs raw ssh, interleaved.
func (e *bench) connect(n int) {
	cold, _ := e.connectOnce([]settings.Backend{remoteServe("far")}, 1) // uploads the core
	_, _ = e.connectOnce([]settings.Backend{{Name: "near", Kind: settings.KindServe}}, 1)
	var remote, local, raw []time.Duration
	for i := 0; i < n; i++ {
		d, _ := e.connectOnce([]settings.Backend{remoteServe("far")}, 1)
		remote = append(remote, d)
		d, _ = e.connectOnce([]settings.Backend{{Name: "near", Kind: settings.KindServe}}, 1)
		local = append(local, d)
		raw = append(raw, e.rawSSH())
	}
	rawP50, rawP90 := p50p90(raw)
	localP50, localP90 := p50p90(local)
	remoteP50, remoteP90 := p50p90(remote)
	fmt.Println("connect -> backend ready (app start to its ready line; ssh: exec to exit)")
	fmt.Printf("%-50s %9s %9s %9s %9s\n", "case", "p50", "p90", "x local", "x ssh")
	row := func(name string, a, b time.Duration) {
		fmt.Printf("%-50s %9s %9s %8.2fx %8.2fx\n", name, fd(a), fd(b), ratio(a, localP50), ratio(a, rawP50))
	}
	row("raw `ssh -F cfg sshtest true`, fresh connection", rawP50, rawP90)
	row("local serve backend (no host)", localP50, localP90)
	row("remote serve backend (host sshtest)", remoteP50, remoteP90)
	fmt.Printf("%-50s %9s %9s %8.2fx %8.2fx\n", "first remote connect (core upload), 1 run", fd(cold), "", ratio(cold, localP50), ratio(cold, rawP50))
	fmt.Printf("%-50s %9s\n", "remote overhead over local (p50 difference)", fd(remoteP50-localP50))
}

// connectOnce starts an app with backends, times it to the last ready
// line, counts sshd's authentications meanwhile, and stops it.
func (e *bench) connectOnce(backends []settings.Backend, want int) (time.Duration, int) {
	auth0 := e.srv.Authentications()
	a, err := e.startApp(backends, "")
	check(e.tb, err)
	d, err := a.waitReady(want, readyWait)
	if err != nil {
		e.finish("connect", a)
		e.tb.Fatalf("connect: %v", err)
	}
	auths := e.srv.Authentications() - auth0
	e.finish("connect", a)
	return d, auths
}

func (e *bench) rawSSH() time.Duration {
	t0 := time.Now()
	out, err := exec.Command("ssh", "-F", e.srv.ClientConfig, "-o", "BatchMode=yes", "-o", "ControlMaster=no", "-o", "ControlPath=none", sshtest.Alias, "true").CombinedOutput()
	d := time.Since(t0)
	if err != nil {
		e.tb.Fatalf("ssh %s true: %v: %s", sshtest.Alias, err, out)
	}
	return d
}

// authentications per connect, for 1 and for 3 backends on one host.
func (e *bench) authentications() {
	fmt.Println("authentications per connect (sshd's \"Accepted publickey\" while the app starts its backends)")
	fmt.Printf("%-50s %9s %9s %9s\n", "case", "min", "max", "to ready")
	for _, k := range []int{1, 3} {
		var backends []settings.Backend
		for i := 0; i < k; i++ {
			backends = append(backends, remoteServe(fmt.Sprintf("far%d", i)))
		}
		lo, hi := 1<<30, 0
		var ds []time.Duration
		for r := 0; r < 3; r++ {
			d, auths := e.connectOnce(backends, k)
			lo, hi = min(lo, auths), max(hi, auths)
			ds = append(ds, d)
		}
		p50, _ := p50p90(ds)
		fmt.Printf("%-50s %9d %9d %9s\n", fmt.Sprintf("%d serve backend(s) on one host, 3 connects", k), lo, hi, fd(p50))
	}
}

// sigkill: SIGKILL the app, time until the remote backend and its remote
// watchdog are gone, and until the remote has nothing of the run left.
func (e *bench) sigkill(n int) {
	var tree, backend, clean []time.Duration
	for i := 0; i < n; i++ {
		a, err := e.startApp([]settings.Backend{remoteServe("far")}, "")
		check(e.tb, err)
		if _, err := a.waitReady(1, readyWait); err != nil {
			e.finish("sigkill", a)
			e.tb.Fatalf("sigkill: %v", err)
		}
		b, err := e.remoteRun(a)
		if err != nil {
			e.finish("sigkill", a)
			e.tb.Fatalf("sigkill: %v", err)
		}
		fds := testbin.OpenPidfds([]int{b.PID, b.ShimPID})
		t0 := time.Now()
		_ = a.cmd.Process.Kill()
		gone := testbin.WaitPidfds(fds, 30*time.Second)
		testbin.ClosePidfds(fds)
		bt, st := since(t0, gone, b.PID), since(t0, gone, b.ShimPID)
		if bt == testbin.Never || st == testbin.Never {
			e.note("sigkill: remote backend %d or its watchdog %d still there 30s after the app's SIGKILL", b.PID, b.ShimPID)
		}
		backend = append(backend, bt)
		tree = append(tree, max(bt, st))
		left := e.srv.WaitClean(10 * time.Second)
		if len(left) == 0 {
			clean = append(clean, time.Since(t0))
		} else {
			clean = append(clean, testbin.Never)
		}
		e.finish("sigkill", a)
	}
	fmt.Println("app SIGKILL -> remote tree gone (pidfds on the remote's processes)")
	fmt.Printf("%-50s %9s %9s %9s\n", "what is gone", "p50", "p99", "max")
	for _, r := range []struct {
		name string
		ds   []time.Duration
	}{
		{"remote backend", backend},
		{"remote backend and its remote watchdog", tree},
		{"every process of the run on the remote (sshd too)", clean},
	} {
		p50, p99, mx := testbin.Quantiles(r.ds)
		fmt.Printf("%-50s %9s %9s %9s\n", r.name, fd(p50), fd(p99), fd(mx))
	}
}

// partition: SIGSTOP the master; time until the remote backend is gone.
func (e *bench) partition(runs int, grace time.Duration) {
	var ds []time.Duration
	for i := 0; i < runs; i++ {
		ds = append(ds, e.partitionOnce(grace))
	}
	p50, p99, mx := testbin.Quantiles(ds)
	fmt.Printf("partition -> teardown (the ssh ControlMaster SIGSTOPped; disconnect grace %v)\n", grace)
	fmt.Printf("%-50s %9s %9s %9s %9s\n", "what is gone", "p50", "p99", "max", "p50-grace")
	fmt.Printf("%-50s %9s %9s %9s %9s\n", "remote backend and its remote watchdog", fd(p50), fd(p99), fd(mx), signed(p50-grace))
	fmt.Println("(the remote watchdog counts the grace from the last heartbeat it got, up to one beat, grace/6, before the SIGSTOP)")
}

func (e *bench) partitionOnce(grace time.Duration) time.Duration {
	a, err := e.startApp([]settings.Backend{remoteServe("far")}, grace.String())
	check(e.tb, err)
	defer e.finish("partition", a)
	if _, err := a.waitReady(1, readyWait); err != nil {
		e.tb.Fatalf("partition: %v", err)
	}
	b, err := e.remoteRun(a)
	check(e.tb, err)
	master, err := a.master()
	check(e.tb, err)
	fds := testbin.OpenPidfds([]int{b.PID, b.ShimPID})
	defer testbin.ClosePidfds(fds)
	wait := grace + 30*time.Second
	t0 := time.Now()
	check(e.tb, sendSignal(master, syscall.SIGSTOP))
	defer func() { _ = sendSignal(master, syscall.SIGCONT) }()
	gone := testbin.WaitPidfds(fds, wait)
	d := max(since(t0, gone, b.PID), since(t0, gone, b.ShimPID))
	if d == testbin.Never {
		e.note("partition: remote backend %d or its watchdog %d still there %v after the master's SIGSTOP (grace %v)", b.PID, b.ShimPID, wait, grace)
	}
	return d
}

// blip: SIGSTOP the master for d under the grace, SIGCONT, time until the
// status shows the backend connected with the same remote PID and its
// local URL answers.
func (e *bench) blip(runs int, grace time.Duration, blips []time.Duration) {
	fmt.Printf("reattach after a blip (the ssh ControlMaster SIGSTOPped, then SIGCONT; disconnect grace %v)\n", grace)
	fmt.Printf("%-44s %9s %9s %9s %9s %9s %7s\n", "blip, SIGCONT -> both", "p50", "p99", "max", "URL p50", "conn p50", "reconn")
	for _, blip := range blips {
		var both, url, conn []time.Duration
		seen := 0
		for i := 0; i < runs; i++ {
			r := e.blipOnce(grace, blip)
			both, url, conn = append(both, max(r.url, r.connected)), append(url, r.url), append(conn, r.connected)
			if r.sawReconnecting {
				seen++
			}
		}
		p50, p99, mx := testbin.Quantiles(both)
		u50, _, _ := testbin.Quantiles(url)
		c50, _, _ := testbin.Quantiles(conn)
		fmt.Printf("%-44s %9s %9s %9s %9s %9s %7s\n", fmt.Sprintf("%v blip", blip), fd(p50), fd(p99), fd(mx), fd(u50), fd(c50), fmt.Sprintf("%d/%d", seen, runs))
	}
	fmt.Println("(both: the status shows the backend connected with the same remote PID and its local URL answers;")
	fmt.Println(" URL, conn: each alone; reconn: runs whose status showed \"reconnecting\" during or after the blip)")
}

type blipResult struct {
	url, connected  time.Duration
	sawReconnecting bool
}

func (e *bench) blipOnce(grace, blip time.Duration) blipResult {
	a, err := e.startApp([]settings.Backend{remoteServe("far")}, grace.String())
	check(e.tb, err)
	defer e.finish("blip", a)
	if _, err := a.waitReady(1, readyWait); err != nil {
		e.tb.Fatalf("blip: %v", err)
	}
	before, err := a.backend("far")
	check(e.tb, err)
	master, err := a.master()
	check(e.tb, err)
	check(e.tb, sendSignal(master, syscall.SIGSTOP))
	stopped := time.Now()
	continued := false
	defer func() {
		if !continued {
			_ = sendSignal(master, syscall.SIGCONT)
		}
	}()
	r := blipResult{url: testbin.Never, connected: testbin.Never}
	for time.Since(stopped) < blip {
		if b, err := a.backend("far"); err == nil && b.Remote != nil && b.Remote.Connection == "reconnecting" {
			r.sawReconnecting = true
		}
		time.Sleep(min(100*time.Millisecond, blip-time.Since(stopped)))
	}
	continued = true
	check(e.tb, sendSignal(master, syscall.SIGCONT))
	t0 := time.Now()
	deadline := t0.Add(grace + 30*time.Second)
	for time.Now().Before(deadline) && (r.url == testbin.Never || r.connected == testbin.Never) {
		b, err := a.backend("far")
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if b.PID != before.PID && b.PID != 0 {
			e.note("blip %v: the remote backend changed PID (a new run, not a reattach)", blip)
			return r
		}
		if b.Remote != nil && b.Remote.Connection == "reconnecting" {
			r.sawReconnecting = true
		}
		if r.connected == testbin.Never && b.Remote != nil && b.Remote.Connection == "connected" && b.PID == before.PID {
			r.connected = time.Since(t0)
		}
		if r.url == testbin.Never && answers(before.URL) {
			r.url = time.Since(t0)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r.url == testbin.Never || r.connected == testbin.Never {
		b, _ := a.backend("far")
		e.note("blip %v: not connected with the same PID and answering %v after SIGCONT", blip, grace+30*time.Second)
		fmt.Fprintf(os.Stderr, "remote: blip: %s pid %d (was %d) remote %+v\n", b.State, b.PID, before.PID, b.Remote)
	}
	return r
}

// remoteRun is backend far's status, with ShimPID the remote watchdog's
// PID: the status' shim_pid when it has one, else the backend's parent
// when that is watchdog-remote (the status may lack it; noted).
func (e *bench) remoteRun(a *app) (model.BackendStatus, error) {
	b, err := a.backend("far")
	if err != nil {
		return b, err
	}
	if b.PID == 0 || b.Remote == nil {
		return b, fmt.Errorf("backend far: no remote PID in the status: %+v", b)
	}
	ppid := parentOf(b.PID)
	if !strings.Contains(strings.Join(cmdline(ppid), " "), "watchdog-remote") {
		return b, fmt.Errorf("backend far: remote PID %d's parent %d is not watchdog-remote: %q", b.PID, ppid, cmdline(ppid))
	}
	argv := cmdline(b.PID)
	if e.argv == "" {
		e.argv = strings.Join(argv, " ")
	}
	if len(argv) > 0 && (len(b.Command) == 0 || filepath.Base(b.Command[0]) != filepath.Base(argv[0])) {
		e.note("status --json command %q (builtin %v) is not what runs on the remote: %s", b.Command, b.Builtin, filepath.Base(argv[0]))
	}
	switch {
	case b.ShimPID == 0:
		e.note("status --json of a ready remote backend has no shim_pid; the remote watchdog is the backend's parent (used instead)")
		b.ShimPID = ppid
	case b.ShimPID != ppid:
		e.note("status --json shim_pid is not the remote backend's parent, watchdog-remote (the parent used instead)")
		b.ShimPID = ppid
	}
	return b, nil
}

func since(t0 time.Time, gone map[int]time.Time, pid int) time.Duration {
	if t, ok := gone[pid]; ok {
		return t.Sub(t0)
	}
	return testbin.Never
}
