//go:build linux

// The supervisor tests run a real Supervisor (harness_test.go)
// against real /bin/sh children. Linux only, as the harness is.

package supervisor

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/model"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/internal/waitfor"
)

func TestSupervisorBecomesReady(t *testing.T) {
	legacy := func(w http.ResponseWriter, r *http.Request) { // Hermes before /api/health
		if r.URL.Path != hermes.StatusPath {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"status":"running"}`)
	}
	for _, tc := range []struct {
		name    string
		script  string
		handler http.HandlerFunc
	}{
		{"ready line", scriptReadyLine, healthy},
		{"ready file", scriptReadyFile, healthy},
		{"with a grandchild", scriptReadyChild, healthy},
		{"health falls back to /api/status", scriptReadyLine, legacy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := healthServer(t, tc.handler)
			h := newHarness(t, supOptions{script: fmt.Sprintf(tc.script, port)})
			if got := h.sup.Status().State; got != model.StateStopped {
				t.Fatalf("state before Start: got %v, want %v", got, model.StateStopped)
			}
			if err := h.sup.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			h.rec.waitEntered(t, model.StateReady, 1)
			h.wantEntered(t, model.StateStarting, model.StateReady)
			st := h.sup.Status()
			if st.PID == 0 || st.Port != port || st.URL != "http://127.0.0.1:"+strconv.Itoa(port) || st.ReadyAt == nil {
				t.Errorf("status when ready: got pid %d port %d url %q ready %v, want a pid, port %d", st.PID, st.Port, st.URL, st.ReadyAt, port)
			}
			rec, err := h.records.Load(st.Nonce)
			if err != nil {
				t.Fatalf("record of the ready backend: %v", err)
			}
			if rec.Port != port || rec.Backend == nil || rec.Backend.PID != st.PID || rec.Owner.Nonce != h.owner {
				t.Errorf("record: got port %d backend %v owner %q, want port %d pid %d owner %q", rec.Port, rec.Backend, rec.Owner.Nonce, port, st.PID, h.owner)
			}

			if err := h.sup.Stop(t.Context()); err != nil {
				t.Fatal(err)
			}
			h.wantEntered(t, model.StateStarting, model.StateReady, model.StateStopped)
			assertReaped(t, st.PID) // Stop returns after the leader is reaped
			// A stopped backend offers no dead address to open or copy.
			if got := h.sup.Status(); got.PID != 0 || got.ShimPID != 0 || got.Port != 0 || got.URL != "" || got.PageURL != "" || got.Tree != nil {
				t.Errorf("status when stopped: got pid %d shim %d port %d url %q page %q tree %v, want none", got.PID, got.ShimPID, got.Port, got.URL, got.PageURL, got.Tree != nil)
			}
			if _, err := h.records.Load(st.Nonce); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("record after Stop: got %v, want ErrNotExist", err)
			}
		})
	}
}

func TestSupervisorCommandsWhenReady(t *testing.T) {
	port := healthServer(t, healthy)
	h := newHarness(t, supOptions{script: fmt.Sprintf(scriptReadyChild, port), autostart: true})
	h.rec.waitEntered(t, model.StateReady, 1)
	first := h.sup.Status()

	n := h.rec.count()
	if err := h.sup.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := h.rec.count(); got != n {
		t.Errorf("notices after Start while ready: got %d, want %d (a no-op)", got, n)
	}

	if err := h.sup.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	assertReaped(t, first.PID) // Restart tears the old instance down first
	h.rec.waitEntered(t, model.StateReady, 2)
	h.wantEntered(t, model.StateStarting, model.StateReady, model.StateStarting, model.StateReady)
	st := h.sup.Status()
	if st.Restarts != 1 || st.LastRestart != "restarted on request" || st.PID == first.PID || st.Nonce == first.Nonce {
		t.Errorf("after Restart: got restarts %d (%q), pid %d (was %d), want 1 restart on request and a new instance",
			st.Restarts, st.LastRestart, st.PID, first.PID)
	}

	// The run context ending is a graceful stop of the ready backend and
	// its grandchildren (checked by shutdown).
	h.shutdown(t)
	h.wantEntered(t, model.StateStarting, model.StateReady, model.StateStarting, model.StateReady, model.StateStopped)
	if got := len(h.children(t)); got != 2 {
		t.Errorf("grandchildren started: got %d, want 2", got)
	}
}

func TestSupervisorCommandsWhenStopped(t *testing.T) {
	port := healthServer(t, healthy)
	h := newHarness(t, supOptions{script: fmt.Sprintf(scriptReadyLine, port)})
	if err := h.sup.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.wantEntered(t) // stopped -> stopped is no change
	if _, err := h.sup.HandoffView(t.Context()); err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Errorf("handoff view while stopped: got %v, want a not-ready error", err)
	}
	if err := h.sup.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.rec.waitEntered(t, model.StateReady, 1)
	h.wantEntered(t, model.StateStarting, model.StateReady)
	if got := h.sup.Status().Restarts; got != 0 {
		t.Errorf("restarts after Restart from stopped: got %d, want 0 (nothing was running)", got)
	}
}

func TestSupervisorCommandsWhenStarting(t *testing.T) {
	h := newHarness(t, supOptions{script: scriptSilent})
	if err := h.sup.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.rec.waitEntered(t, model.StateStarting, 1) // and stays: it never announces a port
	first := h.sup.Status()

	n := h.rec.count()
	if err := h.sup.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, st := h.rec.count(), h.sup.Status(); got != n || st.PID != first.PID {
		t.Errorf("after Start while starting: got %d notices pid %d, want %d notices pid %d (a no-op)", got, st.PID, n, first.PID)
	}

	if err := h.sup.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	assertReaped(t, first.PID)
	st := h.sup.Status()
	if st.State != model.StateStarting || st.Restarts != 1 || st.PID == first.PID || st.PID == 0 {
		t.Errorf("after Restart while starting: got %v restarts %d pid %d, want starting, 1 restart, a new pid (was %d)", st.State, st.Restarts, st.PID, first.PID)
	}

	if err := h.sup.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	assertReaped(t, st.PID)
	h.wantEntered(t, model.StateStarting, model.StateStopped) // starting -> starting is no entry
}

func TestSupervisorCrashLoopFails(t *testing.T) {
	h := newHarness(t, supOptions{
		script: scriptCrash,
		policy: Policy{Max: 2, Window: time.Minute, Backoff: 10 * time.Millisecond},
	})
	loop := []model.State{model.StateStarting, model.StateRestarting, model.StateStarting, model.StateRestarting, model.StateStarting, model.StateFailed}
	if err := h.sup.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.rec.waitEntered(t, model.StateFailed, 1)
	h.wantEntered(t, loop...)
	st := h.sup.Status()
	if st.Restarts != 2 || st.PID != 0 || !strings.Contains(st.LastError, "giving up") || !strings.Contains(st.LastError, "code 1") {
		t.Errorf("failed status: got restarts %d pid %d error %q, want 2 restarts, no pid, giving up after code 1", st.Restarts, st.PID, st.LastError)
	}
	// The card shows it: a duration as a person says it, not Go's "1m0s".
	if !strings.Contains(st.LastError, "within 1 min, giving up") {
		t.Errorf("failed status: got error %q, want within 1 min, giving up", st.LastError)
	}
	if !slices.Contains(st.LogTail, "boom") {
		t.Errorf("log tail: got %q, want the backend's stderr line %q", st.LogTail, "boom")
	}
	if got := len(h.rec.allPIDs()); got != 3 {
		t.Errorf("backends started: got %d, want 3 (first start and 2 restarts)", got)
	}

	// Start from failed forgets the crashes: the whole budget again.
	if err := h.sup.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.rec.waitEntered(t, model.StateFailed, 2)
	// So does Restart ("Try again").
	if err := h.sup.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.rec.waitEntered(t, model.StateFailed, 3)
	h.wantEntered(t, slices.Concat(loop, loop, loop)...)
	if got := h.sup.Status().Restarts; got != 6 {
		t.Errorf("restarts after three crash loops: got %d, want 6", got)
	}

	if err := h.sup.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := h.sup.Status(); st.State != model.StateStopped || st.LastError != "" {
		t.Errorf("after Stop from failed: got %v %q, want stopped with no error", st.State, st.LastError)
	}
}

func TestSupervisorRestartWindowForgetsOldCrashes(t *testing.T) {
	// Every crash is older than the window by the time the next one comes,
	// so one allowed restart is never used up.
	h := newHarness(t, supOptions{
		script: scriptCrash,
		policy: Policy{Max: 1, Window: time.Nanosecond, Backoff: 10 * time.Millisecond},
	})
	if err := h.sup.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.rec.waitEntered(t, model.StateRestarting, 3)
	if err := h.sup.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := h.rec.entered(); slices.Contains(got, model.StateFailed) || got[len(got)-1] != model.StateStopped {
		t.Errorf("states entered: got %v, want restarts without failed, then stopped", got)
	}
}

func TestSupervisorCommandsWhenRestarting(t *testing.T) {
	// A backoff far longer than the test holds the supervisor in restarting
	// until a command moves it.
	h := newHarness(t, supOptions{
		script: scriptCrash,
		policy: Policy{Max: 5, Window: time.Minute, Backoff: time.Hour},
	})
	if err := h.sup.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.rec.waitEntered(t, model.StateRestarting, 1)

	n := h.rec.count()
	if err := h.sup.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, st := h.rec.count(), h.sup.Status(); got != n || st.State != model.StateRestarting {
		t.Errorf("after Start while restarting: got %d notices, %v, want %d notices, restarting (a no-op)", got, st.State, n)
	}

	// Restart skips the backoff.
	if err := h.sup.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.rec.waitEntered(t, model.StateRestarting, 2)

	if err := h.sup.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.wantEntered(t, model.StateStarting, model.StateRestarting, model.StateStarting, model.StateRestarting, model.StateStopped)
	if got := h.sup.Status().Restarts; got != 2 {
		t.Errorf("restarts: got %d, want 2 (two crashes; Restart of nothing running adds none)", got)
	}
}

func TestSupervisorStartTimeout(t *testing.T) {
	// Mostly the kind of timeout is asserted (see TestProbeHealth for the
	// answers themselves); the 404's advice is reported whether or not a
	// probe was in flight at the deadline (awaitHealth keeps the last
	// answer, not the cut-short probe's error).
	for _, tc := range []struct {
		name      string
		script    string // %d, if present, is the health server's port
		handler   http.HandlerFunc
		wantError string
	}{
		{"no ready line", scriptSilent, healthy, "did not announce a port"},
		{"health answers 503", scriptReadyLine, func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}, "did not pass its health check"},
		{"health says not ok", scriptReadyLine, func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `{"ok":false}`)
		}, "did not pass its health check"},
		// A server that is not Hermes: what to change, not only the code.
		{"health answers 404", scriptReadyLine, http.NotFound, "no page at its health path /api/health (HTTP 404 Not Found for 500ms): set a health path the server answers, such as /"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := healthServer(t, tc.handler)
			script := tc.script
			if strings.Contains(script, "%d") {
				script = fmt.Sprintf(script, port)
			}
			h := newHarness(t, supOptions{script: script, startTimeout: 500 * time.Millisecond})
			if err := h.sup.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			h.rec.waitEntered(t, model.StateFailed, 1)
			h.wantEntered(t, model.StateStarting, model.StateFailed)
			if st := h.sup.Status(); !strings.Contains(st.LastError, tc.wantError) {
				t.Errorf("last error: got %q, want it to contain %q", st.LastError, tc.wantError)
			}
			for _, pid := range h.rec.allPIDs() {
				assertReaped(t, pid) // torn down before failed was published
			}
		})
	}
}

// Start timeouts far apart count all the same: a backend that never gets
// ready fails after the policy's restarts, though the crash window (shorter
// than the start timeout here, as 2 min is against Hermes' 60 s) forgets
// each timeout before the next. Before, it restarted forever.
func TestSupervisorStartTimeoutsInARowFail(t *testing.T) {
	h := newHarness(t, supOptions{
		script:       scriptSilent,
		startTimeout: 300 * time.Millisecond,
		policy:       Policy{Max: 2, Window: 10 * time.Millisecond, Backoff: 10 * time.Millisecond},
	})
	if err := h.sup.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.rec.waitEntered(t, model.StateFailed, 1)
	st := h.sup.Status()
	if st.Restarts != 2 || !strings.Contains(st.LastError, "did not become ready in 3 starts in a row") || !strings.Contains(st.LastError, "within 300 ms") {
		t.Errorf("failed status: got restarts %d, error %q; want 2 restarts and three timeouts in a row", st.Restarts, st.LastError)
	}
	for _, pid := range h.rec.allPIDs() {
		assertReaped(t, pid)
	}
	// Try again starts the count afresh.
	if err := h.sup.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.rec.waitEntered(t, model.StateFailed, 2)
	h.wantEntered(t, model.StateStarting, model.StateRestarting, model.StateStarting, model.StateRestarting, model.StateStarting, model.StateFailed,
		model.StateStarting, model.StateRestarting, model.StateStarting, model.StateRestarting, model.StateStarting, model.StateFailed)
}

func TestSupervisorCannotStart(t *testing.T) {
	h := newHarness(t, supOptions{command: []string{filepath.Join(t.TempDir(), "no-such-backend")}})
	if err := h.sup.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.wantEntered(t, model.StateFailed) // Start returns after the launch
	if st := h.sup.Status(); !strings.Contains(st.LastError, "cannot start") || st.Restarts != 0 {
		t.Errorf("status: got error %q restarts %d, want cannot start, no restart", st.LastError, st.Restarts)
	}
}

func TestSupervisorSamplesTree(t *testing.T) {
	port := healthServer(t, healthy)
	h := newHarness(t, supOptions{
		script: fmt.Sprintf(scriptReadyChild, port), autostart: true, sample: leakguard.MinSampleInterval,
	})
	// The first sample is taken right after ready, and the record is
	// updated before the sample is published.
	h.rec.waitFor(t, "a tree sample", func(ns []notice) bool {
		return slices.ContainsFunc(ns, func(n notice) bool { return n.tree })
	})
	st := h.sup.Status()
	if st.Tree == nil || len(st.Tree.Processes) < 2 {
		t.Fatalf("tree: got %+v, want the backend and its child", st.Tree)
	}
	rec, err := h.records.Load(st.Nonce)
	if err != nil {
		t.Fatal(err)
	}
	children := h.children(t)
	if len(rec.Descendants) != 1 || len(children) != 1 || rec.Descendants[0].PID != children[0] {
		t.Errorf("record descendants: got %v, want the child %v", rec.Descendants, children)
	}
}

// A tree that stays the same is still checked at every sample: the status
// says when (SampledAt) and since when it looks the same (ChangedAt), and
// the window is not told again (it would wake for nothing).
func TestSupervisorUnchangedTreeIsCheckedQuietly(t *testing.T) {
	port := healthServer(t, healthy)
	h := newHarness(t, supOptions{
		script: fmt.Sprintf(scriptReadyLine, port), autostart: true, sample: leakguard.MinSampleInterval,
	})
	h.rec.waitFor(t, "a tree sample", func(ns []notice) bool {
		return slices.ContainsFunc(ns, func(n notice) bool { return n.tree })
	})
	first := h.sup.Status().Tree
	told := h.rec.count()
	if !first.ChangedAt.Equal(first.SampledAt) {
		t.Errorf("first sample: got changed_at %v, want its sampled_at %v", first.ChangedAt, first.SampledAt)
	}
	// A young backend's tree may still change (its memory grows, a helper
	// exits): wait for a sample that found it unchanged, then check that
	// the window was not told of that one.
	var later *leakguard.TreeSample
	if !waitfor.Try(waitLimit, func() bool {
		if later = h.sup.Status().Tree; later == nil || !later.SampledAt.After(first.SampledAt) {
			return false
		}
		if later.ChangedAt.Equal(later.SampledAt) { // it changed: the window was told; look again
			first, told = later, h.rec.count()
			return false
		}
		return true
	}) {
		t.Fatalf("no unchanged sample after %v", first.SampledAt)
	}
	if !later.ChangedAt.Equal(first.ChangedAt) {
		t.Errorf("unchanged tree: got changed_at %v, want the previous sample's %v", later.ChangedAt, first.ChangedAt)
	}
	if got := h.rec.count(); got != told {
		t.Errorf("notifications after an unchanged sample: got %d, want %d", got, told)
	}
}

// The sampling clock (a timerfd on Linux) runs while there is a backend to
// sample and only then: a stopped backend costs no wakeups at all.
func TestSupervisorSamplesOnlyWhileRunning(t *testing.T) {
	before := countTimerfds(t)
	port := healthServer(t, healthy)
	h := newHarness(t, supOptions{
		script: fmt.Sprintf(scriptReadyLine, port), autostart: true, sample: leakguard.MinSampleInterval,
	})
	h.rec.waitEntered(t, model.StateReady, 1)
	if got := countTimerfds(t); got != before+1 {
		t.Errorf("ready: got %d timerfds, want %d (the sampling clock)", got, before+1)
	}
	if err := h.sup.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The clock stops at the top of the run loop, after the reply.
	var got int
	if !waitfor.Try(waitLimit, func() bool { got = countTimerfds(t); return got == before }) {
		t.Fatalf("stopped: got %d timerfds, want %d: the clock still runs", got, before)
	}
}

// countTimerfds counts this process's open timerfds.
func countTimerfds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if link, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && link == "anon_inode:[timerfd]" {
			n++
		}
	}
	return n
}

func TestSupervisorHandoffViewAndDetach(t *testing.T) {
	port := healthServer(t, healthy)
	h := newHarness(t, supOptions{script: fmt.Sprintf(scriptReadyLine, port), autostart: true})
	h.rec.waitEntered(t, model.StateReady, 1)
	st := h.sup.Status()
	view, err := h.sup.HandoffView(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if view.Status.State != model.StateReady || view.Nonce != st.Nonce || view.Backend.PID != st.PID || view.ViaShim {
		t.Errorf("handoff view: got %v nonce %q pid %d shim %v, want ready, %q, %d, no shim",
			view.Status.State, view.Nonce, view.Backend.PID, view.ViaShim, st.Nonce, st.PID)
	}

	// Detach hands the backend over: run returns, the backend keeps
	// running and its record stays for the next launcher.
	if err := h.sup.Detach(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.sup.Done():
	case <-time.After(waitLimit):
		t.Fatal("run did not return after a detach")
	}
	if err := syscall.Kill(st.PID, 0); err != nil {
		t.Errorf("backend after detach: kill(pid, 0) got %v, want it alive", err)
	}
	if _, err := h.records.Load(st.Nonce); err != nil {
		t.Errorf("record after detach: got %v, want it kept", err)
	}
	// Play the next launcher: end the backend and drop its record. The
	// detached instance's waiter still reaps our child.
	if err := syscall.Kill(-st.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitReaped(t, st.PID)
	if err := h.records.Remove(st.Nonce); err != nil {
		t.Fatal(err)
	}
}
