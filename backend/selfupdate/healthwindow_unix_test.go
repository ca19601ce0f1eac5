//go:build unix

package selfupdate

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/update"
	"hermes-desktop/internal/waitfor"
)

// newInstance starts a real child standing in for the new version (a
// shell that runs script) and returns the Watch over it. The test owns the
// child: it is killed and reaped at the end if still running.
func newInstance(t *testing.T, script string, window time.Duration) *Watch {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the stand-in: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // our child, not reaped yet: its PID is still ours
		<-exited
	})
	return &Watch{
		PID: cmd.Process.Pid, Exited: exited, ExitState: func() *os.ProcessState { return cmd.ProcessState },
		Probation: update.Probation{Version: "1.1.0", Started: time.Now(), Window: window},
		Baseline:  map[string]int{"default": 1},
		StateDir:  t.TempDir(),
	}
}

// answer serves status on w's control socket as the new instance would,
// from what status() returns at each probe, and counts the probes.
func answer(t *testing.T, w *Watch, status func() model.Status) *atomic.Int32 {
	t.Helper()
	srv, err := control.Listen(w.StateDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var probes atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ctx, control.HandlerFunc(func(context.Context, control.Request) (any, error) {
			probes.Add(1)
			return status(), nil
		}))
	}()
	t.Cleanup(func() {
		cancel()
		_ = srv.Close()
		<-done
	})
	return &probes
}

func backendIn(state model.State, crashes int) model.Status {
	var st model.Status
	st.Backends = []model.BackendStatus{{Name: "default", State: state, Crashes: crashes, LastError: "exit status 1"}}
	return st
}

func TestWait(t *testing.T) {
	tests := []struct {
		name   string
		script string
		status func() model.Status // nil: nothing answers
		want   Verdict
		why    string
	}{
		{"healthy to the end", "sleep 30", func() model.Status { return backendIn(model.StateReady, 1) }, Passed, ""},
		{"a crash before the update does not count", "sleep 30", func() model.Status { return backendIn(model.StateReady, 2) }, Passed, ""},
		{"exits 0: stopped, not failed", "exit 0", nil, Stopped, "exited 0"},
		{"dies", "exit 3", nil, Failed, "exit status 3"},
		{"stops answering", "sleep 30", nil, Failed, "stopped answering"},
		{"a backend failed", "sleep 30", func() model.Status { return backendIn(model.StateFailed, 1) }, Failed, "backend default failed under the new version"},
		{"a backend crashed twice", "sleep 30", func() model.Status { return backendIn(model.StateReady, 3) }, Failed, "crashed 2 times"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newInstance(t, tc.script, time.Second)
			if tc.status != nil {
				answer(t, w, func() model.Status {
					st := tc.status()
					st.Instance.PID = w.PID
					return st
				})
			}
			got, why := w.Wait(context.Background())
			if got != tc.want || !strings.Contains(why, tc.why) {
				t.Fatalf("Wait = %v, %q; want %v, %q", got, why, tc.want, tc.why)
			}
		})
	}
}

// An answer from another instance (another PID on the socket) is no answer.
func TestWaitIgnoresAnotherInstance(t *testing.T) {
	w := newInstance(t, "sleep 30", time.Minute)
	probes := answer(t, w, func() model.Status {
		st := backendIn(model.StateReady, 0)
		st.Instance.PID = w.PID + 1
		return st
	})
	got, why := w.Wait(context.Background())
	if got != Failed || !strings.Contains(why, "stopped answering") || probes.Load() < probeMisses {
		t.Fatalf("Wait = %v, %q after %d probes; want Failed, stopped answering", got, why, probes.Load())
	}
}

func TestWaitAbandoned(t *testing.T) {
	w := newInstance(t, "sleep 30", time.Minute)
	answer(t, w, func() model.Status { st := backendIn(model.StateReady, 0); st.Instance.PID = w.PID; return st })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if got, _ := w.Wait(ctx); got != Abandoned {
		t.Fatalf("Wait = %v; want Abandoned", got)
	}
}

func TestWaitSettled(t *testing.T) {
	var state atomic.Value
	state.Store(model.StateRestarting)
	w := newInstance(t, "sleep 30", time.Minute)
	probes := answer(t, w, func() model.Status {
		st := backendIn(state.Load().(model.State), 0)
		st.Instance.PID = w.PID
		return st
	})
	go func() { // ready after two probes saw it restarting
		waitfor.Try(10*time.Second, func() bool { return probes.Load() >= 2 })
		state.Store(model.StateReady)
	}()
	if err := w.WaitSettled(context.Background()); err != nil {
		t.Fatalf("WaitSettled: %v", err)
	}
	state.Store(model.StateFailed)
	if err := w.WaitSettled(context.Background()); err == nil || !strings.Contains(err.Error(), "backend default failed") {
		t.Fatalf("WaitSettled with a failed backend = %v", err)
	}
}
