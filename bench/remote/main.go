//go:build linux

// Command remote times backends on another host over ssh (issues 25 and
// 33), against a real OpenSSH server on loopback (internal/sshtest:
// Debian's sshd, a throwaway key, the "remote" is this machine), side by
// side:
//
//   - the transports (transports.go): an older revision's ControlMaster
//     (one mux client per remote command) against this tree's one ssh
//     session per host carrying our mux: connect -> ready, restart ->
//     ready, and per connect and per restart the authentications, the ssh
//     clients started locally and the remote commands run (each of which
//     would be one authentication with Hermes' one connection per command,
//     NousResearch/hermes-agent #84452). The old build comes from -old-bin
//     PATH (its cores from -old-cores DIR, else made from the binary, as for
//     this tree) or is built here from a git revision: -old-rev REV (a
//     temporary worktree, removed after; `make bench-remote` passes
//     OLD_REV=8e29df6, the last ControlMaster revision, or OLD_BIN=PATH).
//     Without either, the new transport's rows alone;
//   - connect -> ready: `run --headless` started -> "backend ready" for a
//     serve backend on the ssh host, the same backend started locally, and
//     a raw `ssh -F cfg sshtest true` on a fresh connection;
//   - authentications per connect (sshd's "Accepted publickey") for 1 and
//     for 3 backends on one host;
//   - app SIGKILL -> remote tree gone: the remote backend and its remote
//     watchdog, timed from pidfds (the remote is this machine);
//   - partition -> teardown: the app's ssh session SIGSTOPped, until
//     the remote backend is gone, against the disconnect grace;
//   - reattach after a blip: the session SIGSTOPped for a while under the
//     grace, then SIGCONT, until the status shows the backend connected
//     with the same remote PID and its local URL answers;
//   - the update handoff of a remote backend: failed probes through its
//     local port (handoff.go);
//   - reclaim after a closed session: the ssh client SIGSTOPped, then
//     SIGKILLed, until the same remote PID is connected again (reclaim.go);
//   - sampling cost on the remote: the remote core's CPU per minute with
//     a 20-process tree sampled every 5 s, every hour and every second
//     (sampling.go).
//
// The first remote connect uploads the core; it is shown on its own and
// left out of the connect figures. Every process started (sshd, apps,
// remote sessions) is stopped at the end, on failure too. Root is needed
// for the kernel's process events (the mux server's commands are counted
// from them).
//
// Usage: go run ./bench/remote [-n 10] [-faults 5] [-old-rev REV | -old-bin PATH [-old-cores DIR]]
// [-cases transports,update,...] [-partition-grace 3s] [-reclaim-grace 30s] [-reclaim-quiet 10s] [-sample-window 1m]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/coretest"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/internal/testbin"
)

type bench struct {
	tb       *benchTB
	srv      *sshtest.Server
	bin      string
	cores    string
	root     string
	notes    []string       // what misbehaved, printed after the tables, in order
	counts   map[string]int // how often each note was seen
	argv     string         // the remote backend's command line, as run
	oldBin   string         // the old transport's build ("": none)
	oldCores string         // its cores directory
	oldName  string         // its revision, for the table
	wrapDir  string         // the counting ssh wrapper's directory (sshwrap.go)
	sshLog   string         // the log it appends to
	forks    *forkLog       // the kernel's fork events (procevents.go)
}

// options are the flags.
type options struct {
	n, faults, updates, reclaims int
	partitionGrace, blipGrace    time.Duration
	reclaimGrace, reclaimQuiet   time.Duration
	blips                        []time.Duration
	oldBin, oldCores, oldRev     string
	cases                        string
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 10, "runs of each connect case, of the transports' connect and restart, and of the SIGKILL case")
	flag.IntVar(&o.faults, "faults", 5, "runs of each partition and blip case")
	flag.IntVar(&o.updates, "updates", 3, "update handoffs of a remote backend")
	flag.IntVar(&o.reclaims, "reclaims", 3, "reclaims after a closed session")
	flag.DurationVar(&o.partitionGrace, "partition-grace", 3*time.Second, "disconnect grace for the partition case")
	flag.DurationVar(&o.blipGrace, "blip-grace", 5*time.Second, "disconnect grace for the blip cases")
	flag.DurationVar(&o.reclaimGrace, "reclaim-grace", 30*time.Second, "disconnect grace for the reclaim case")
	flag.DurationVar(&o.reclaimQuiet, "reclaim-quiet", 10*time.Second, "how long the ssh client is stopped before its SIGKILL in the reclaim case")
	blips := flag.String("blips", "1s,3s", "blip lengths (comma-separated), each under -blip-grace")
	flag.StringVar(&o.oldBin, "old-bin", "", "the old transport's build (ControlMaster), for the transports table")
	flag.StringVar(&o.oldCores, "old-cores", "", "its remote cores directory (default: made from -old-bin)")
	flag.StringVar(&o.oldRev, "old-rev", "", "build the old transport from this git revision (a temporary worktree), instead of -old-bin")
	flag.StringVar(&o.cases, "cases", "all", "the cases to run, comma-separated: transports, connect, auth, sigkill, partition, blip, update, reclaim, sampling")
	flag.DurationVar(&sampleWindow, "sample-window", time.Minute, "how long the sampling cost is measured at each interval")
	flag.Parse()
	for _, s := range strings.Split(*blips, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d >= o.blipGrace {
			fmt.Fprintf(os.Stderr, "remote: bad blip %q (a duration under -blip-grace %v)\n", s, o.blipGrace)
			os.Exit(2)
		}
		o.blips = append(o.blips, d)
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
		run(tb, o)
	}()
	tb.runCleanups()
	if tb.Failed() && code == 0 {
		code = 1
	}
	os.Exit(code)
}

func run(tb *benchTB, o options) {
	e := setup(tb, o)
	fmt.Printf("remote backends over ssh (issues 25, 33): a real sshd on loopback (%s), the built-in serve backend\n", sshVersion())
	fmt.Printf("%d runs per connect and SIGKILL case, %d per partition and blip case\n\n", o.n, o.faults)
	for _, c := range []struct {
		name string
		run  func()
	}{
		{"connect", func() { e.connect(o.n) }},
		{"transports", func() { e.transports(o.n) }},
		{"auth", e.authentications},
		{"sigkill", func() { e.sigkill(o.n) }},
		{"partition", func() { e.partition(o.faults, o.partitionGrace) }},
		{"blip", func() { e.blip(o.faults, o.blipGrace, o.blips) }},
		{"update", func() { e.updates(o.updates) }},
		{"reclaim", func() { e.reclaims(o.reclaims, o.reclaimGrace, o.reclaimQuiet) }},
		{"sampling", func() { e.samplingCost(sampleWindow) }},
	} {
		if o.cases == "all" || slices.Contains(strings.Split(o.cases, ","), c.name) {
			c.run() // connect first: its first connect uploads the core
			fmt.Println()
		}
	}
	if e.argv != "" {
		fmt.Printf("the remote backend ran as: %s\n", e.argv)
	}
	if len(e.notes) > 0 {
		fmt.Println()
		fmt.Println("misbehaviour seen:")
		for _, s := range e.notes {
			fmt.Printf("  - %s (%d times)\n", s, e.counts[s])
		}
	}
}

// setup builds this tree (and the old build when asked), starts sshd,
// the process events and the ssh wrapper, and registers their cleanups.
func setup(tb *benchTB, o options) *bench {
	e := &bench{tb: tb, counts: map[string]int{}}
	e.root = tb.TempDir()
	bin, err := testbin.Build(e.root)
	check(tb, err)
	e.bin = bin
	e.oldBin, e.oldCores, e.oldName = o.oldBin, o.oldCores, "(-old-bin)"
	if o.oldRev != "" {
		e.oldBin, e.oldName, err = buildOld(e.root, o.oldRev)
		check(tb, err)
		e.oldName = "(" + e.oldName + ")"
	}
	e.wrapDir = tb.TempDir()
	e.sshLog, err = installSSHWrapper(e.wrapDir)
	check(tb, err)
	e.forks, err = listenForks()
	check(tb, err)
	tb.Cleanup(e.forks.Close)
	e.forks.arm()
	e.srv = sshtest.Start(tb)
	e.cores = coretest.Dir(tb, bin)
	if e.oldBin != "" && e.oldCores == "" {
		e.oldCores = coretest.Dir(tb, e.oldBin)
	}
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
	return e
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
