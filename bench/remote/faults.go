//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/testbin"
)

// partition: SIGSTOP the session's ssh; time until the remote backend is gone.
func (e *bench) partition(runs int, grace time.Duration) {
	var ds []time.Duration
	for i := 0; i < runs; i++ {
		ds = append(ds, e.partitionOnce(grace))
	}
	p50, p99, mx := testbin.Quantiles(ds)
	fmt.Printf("partition -> teardown (the ssh session SIGSTOPped; disconnect grace %v)\n", grace)
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
		e.note("partition: remote backend %d or its watchdog %d still there %v after the session's SIGSTOP (grace %v)", b.PID, b.ShimPID, wait, grace)
	}
	return d
}

// blip: SIGSTOP the session's ssh for d under the grace, SIGCONT, time until the
// status shows the backend connected with the same remote PID and its
// local URL answers.
func (e *bench) blip(runs int, grace time.Duration, blips []time.Duration) {
	fmt.Printf("reattach after a blip (the ssh session SIGSTOPped, then SIGCONT; disconnect grace %v)\n", grace)
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
