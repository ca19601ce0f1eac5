//go:build linux

package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/testbin"
)

// The update handoff's downtime for a remote backend, as e2e
// TestRemoteBackendSurvivesAnUpdate measures it: a probe loop GETs the
// backend's local URL throughout an adopt handoff to a copy of the binary
// (an update); the successor claims the backend over its own session.

// prober GETs url every 5 ms until stop, counting failures (no answer, or
// a 5xx) and keeping the slowest answer.
type prober struct {
	mu          sync.Mutex
	n, failed   int           // guarded by mu
	slowest     time.Duration // guarded by mu
	stop, ended chan struct{}
}

func probe(url string) *prober {
	p := &prober{stop: make(chan struct{}), ended: make(chan struct{})}
	client := &http.Client{Timeout: 20 * time.Second}
	go func() { // ends at finish
		defer close(p.ended)
		for {
			select {
			case <-p.stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			t0 := time.Now()
			resp, err := client.Get(url)
			took := time.Since(t0)
			bad := err != nil || resp.StatusCode >= 500
			if resp != nil {
				resp.Body.Close()
			}
			p.mu.Lock()
			p.n++
			if bad {
				p.failed++
			}
			p.slowest = max(p.slowest, took)
			p.mu.Unlock()
		}
	}()
	return p
}

func (p *prober) finish() (n, failed int, slowest time.Duration) {
	close(p.stop)
	<-p.ended
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n, p.failed, p.slowest
}

// handoffResult is one update's figures.
type handoffResult struct {
	probes, failed int
	slowest, took  time.Duration // took: handoff started -> the successor's backend connected
	oldGone        time.Duration // handoff started -> the old app exited
	claimed        time.Duration // handoff started -> the successor's log says it claimed the backend
	samePID        bool
}

// updates runs the handoff `runs` times and prints one row.
func (e *bench) updates(runs int) {
	succ := filepath.Join(e.root, "successor", "hermes-desktop")
	check(e.tb, os.MkdirAll(filepath.Dir(succ), 0o755))
	data, err := os.ReadFile(e.bin)
	check(e.tb, err)
	check(e.tb, os.WriteFile(succ, data, 0o755))
	var probes, failed, same int
	var slowest, took, gone, claimed []time.Duration
	for i := 0; i < runs; i++ {
		r := e.updateOnce(succ)
		probes, failed = probes+r.probes, failed+r.failed
		slowest, took, gone = append(slowest, r.slowest), append(took, r.took), append(gone, r.oldGone)
		claimed = append(claimed, r.claimed)
		if r.samePID {
			same++
		}
	}
	s50, _, smax := testbin.Quantiles(slowest)
	t50, _, tmax := testbin.Quantiles(took)
	g50, _, _ := testbin.Quantiles(gone)
	c50, _, cmax := testbin.Quantiles(claimed)
	fmt.Println("update handoff of a remote backend (`handoff --mode adopt` to a copy of the binary; a probe loop on its local URL)")
	fmt.Printf("%-26s %6s %6s %8s %8s %8s %8s %9s %9s %8s\n", "runs", "probes", "failed", "slowest", "max", "old gone", "claimed", "claim max", "connected", "max")
	fmt.Printf("%-26s %6d %6d %8s %8s %8s %8s %9s %9s %8s\n", fmt.Sprintf("%d (same remote PID in %d)", runs, same), probes, failed, fd(s50), fd(smax), fd(g50), fd(c50), fd(cmax), fd(t50), fd(tmax))
	fmt.Println("(p50 and max over the runs, from the CLI's start; failed: no answer or a 5xx through the local port;")
	fmt.Println(" slowest: the slowest probe; old gone: the old app exited; claimed: the successor's log says it claimed the")
	fmt.Println(" backend; connected: its status shows it connected, same remote PID; probes go on 2 s after that)")
}

func (e *bench) updateOnce(succ string) handoffResult {
	a, err := e.startApp([]settings.Backend{remoteServe("far")}, "30s")
	check(e.tb, err)
	defer e.finish("handoff", a)
	if _, err := a.waitReady(1, readyWait); err != nil {
		e.tb.Fatalf("handoff: %v", err)
	}
	b, err := a.backend("far")
	check(e.tb, err)
	st, err := a.status()
	check(e.tb, err)
	p := probe(b.URL)
	time.Sleep(200 * time.Millisecond)
	a.handedOff = true
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.bin, "handoff", "--to", succ, "--mode", "adopt", "--timeout", "60s", "--state-dir", a.state)
	cmd.Env = a.env
	if out, err := cmd.CombinedOutput(); err != nil {
		p.finish()
		e.tb.Fatalf("handoff: %v: %s", err, out)
	}
	r := handoffResult{took: testbin.Never, oldGone: testbin.Never}
	gone := make(chan time.Duration, 1)
	go func() { // ends when the old app exits (at the latest in finish's stop)
		<-a.exited
		gone <- time.Since(t0)
	}()
	states := e.waitSuccessor(a, st.Instance.PID, b.PID, t0, &r)
	if r.took == testbin.Never {
		e.note("handoff: the successor's backend not connected within 60s")
	} else if !r.samePID {
		e.note("handoff: the successor runs a new remote backend (not the same PID)")
	}
	r.claimed = claimedAt(a.state, t0)
	if len(states) > 1 {
		e.note("handoff: the successor's status showed %v before connected", states[:len(states)-1])
	}
	time.Sleep(2 * time.Second)
	r.probes, r.failed, r.slowest = p.finish()
	select {
	case r.oldGone = <-gone:
	default:
		e.note("handoff: the old app still there when the successor's backend was connected 2 s")
	}
	return r
}

// waitSuccessor polls the status until an instance other than old shows
// the backend connected, sets r's took and samePID (was: the remote PID
// before), and returns the connection states it showed, in order.
func (e *bench) waitSuccessor(a *app, old, was int, t0 time.Time, r *handoffResult) []string {
	var states []string
	for time.Since(t0) < 60*time.Second {
		now, err := a.status()
		if err == nil && now.Instance.PID != old && len(now.Backends) == 1 && now.Backends[0].Remote != nil {
			nb := now.Backends[0]
			if len(states) == 0 || states[len(states)-1] != nb.Remote.Connection {
				states = append(states, nb.Remote.Connection)
			}
			if nb.Remote.Connection == "connected" && nb.PID != 0 {
				r.took, r.samePID = time.Since(t0), nb.PID == was
				return states
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return states
}

// claimedAt is when, after t0, the backend's log under state says it
// claimed the backend (Never if it does not).
func claimedAt(state string, t0 time.Time) time.Duration {
	files, _ := filepath.Glob(filepath.Join(state, "logs", "*.log"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			stamp, rest, _ := strings.Cut(l, " ")
			if !strings.Contains(rest, "claimed the backend") {
				continue
			}
			if t, err := time.Parse(time.RFC3339Nano, stamp); err == nil && t.After(t0) {
				return t.Sub(t0)
			}
		}
	}
	return testbin.Never
}
