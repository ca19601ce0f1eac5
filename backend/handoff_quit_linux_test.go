//go:build linux

package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/lockfile"
)

// waitLimit bounds every wait for the launcher to reach a state.
const waitLimit = 10 * time.Second

// scriptReadyLine is a backend that says it is ready on port %d, then
// sleeps.
const scriptReadyLine = `echo "HERMES_BACKEND_READY port=%d"; exec sleep 30`

// healthServer serves handler on loopback until the test ends, and returns
// its port.
func healthServer(t *testing.T, handler http.HandlerFunc) int {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(port)
	return n
}

// healthy answers the default health path as a current Hermes does.
func healthy(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != DefaultHealthPath {
		http.NotFound(w, r)
		return
	}
	fmt.Fprint(w, `{"ok":true}`)
}

// failingSuccessor writes an executable that passes the handoff's check
// (`version` answers as ours) but never comes up: run as a successor, it
// says so by creating started, then waits for the test to create exit
// before it exits 3, so the test decides when the handoff learns of the
// failure.
func failingSuccessor(t *testing.T, dir string) (exe, started, exit string) {
	t.Helper()
	exe = filepath.Join(dir, "successor.sh")
	started, exit = filepath.Join(dir, "started"), filepath.Join(dir, "exit")
	script := fmt.Sprintf(`#!/bin/sh
if [ "$1" = version ]; then echo "hermes-desktop 0.0.0-test"; exit 0; fi
: > %q
i=0
while [ ! -e %q ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
exit 3
`, started, exit)
	if err := os.WriteFile(exe, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return exe, started, exit
}

// TestQuitDuringFailedRestartHandoff drives a Quit (RequestStop, then
// Shutdown, as the window's lifecycle does) while a restart-mode handoff
// (the window's Restart Hermes Desktop) waits for a successor that then
// fails to come up. The handoff has let go of the locks and the socket;
// its failure would take them back from its own goroutine while Shutdown
// releases them. Shutdown must win: once both are done, nothing holds the
// state dir or answers on its socket, and the race detector sees no
// unguarded access to the locks or the socket.
func TestQuitDuringFailedRestartHandoff(t *testing.T) {
	dir := t.TempDir()
	stateDir := filepath.Join(dir, "state")
	exe, started, exit := failingSuccessor(t, dir)
	port := healthServer(t, healthy)
	l, err := Open(Config{
		StateDir: stateDir, HermesHome: dir, Self: exe, Core: "/bin/false", NoShim: true, NoBootReap: true,
		Backends:    []runspec.Spec{{Name: "unit", Command: []string{"/bin/sh", "-c", fmt.Sprintf(scriptReadyLine, port)}, Grace: 2 * time.Second}},
		Containment: model.ContainmentProcessTree, Logger: slog.New(slog.DiscardHandler), Announce: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Shutdown() })
	l.Start()
	waitState(t, l, model.StateReady)

	handoffErr := make(chan error, 1)
	go func() { // the window's Restart Hermes Desktop, keeping no backend
		_, err := l.Relaunch(context.Background(), false)
		handoffErr <- err
	}()
	waitFile(t, started) // the backends are stopped, the state dir let go

	l.RequestStop() // Quit
	if err := l.Shutdown(); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	if err := os.WriteFile(exit, nil, 0o600); err != nil { // the successor fails now
		t.Fatal(err)
	}
	select {
	case err = <-handoffErr:
	case <-time.After(time.Minute):
		t.Fatal("the handoff did not return")
	}
	if err == nil {
		t.Fatal("handoff to a successor that exited: got no error")
	}
	if !errors.Is(err, errShuttingDown) {
		t.Errorf("handoff error: got %v, want one that says the state dir was not taken back (%v)", err, errShuttingDown)
	}
	checkLetGo(t, l)
}

// TestQuitDuringRestartHandoffOverSocket is the same Quit while the
// handoff runs in a control handler's goroutine (`hermes-desktop handoff
// --mode restart`): Shutdown ends the request, which gives the handoff up;
// the handoff must not take the state dir back after Shutdown let go.
func TestQuitDuringRestartHandoffOverSocket(t *testing.T) {
	dir := t.TempDir()
	exe, started, _ := failingSuccessor(t, dir)
	l := startLauncher(t, dir, exe)

	callErr := make(chan error, 1)
	go func() { // the CLI's handoff
		_, err := protocol.OpHandoff.Call(context.Background(), l.StateDir(), "", protocol.HandoffArgs{To: exe, Mode: protocol.HandoffRestart})
		callErr <- err
	}()
	waitFile(t, started)

	l.RequestStop() // Quit
	if err := l.Shutdown(); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	select {
	case err := <-callErr:
		if err == nil {
			t.Error("handoff given up by a shutdown: got no error")
		}
	case <-time.After(time.Minute):
		t.Fatal("the handoff request did not return")
	}
	checkLetGo(t, l)
}

// startLauncher opens and starts a launcher whose own executable is exe,
// with one /bin/sh backend, and waits until the backend is ready.
func startLauncher(t *testing.T, dir, exe string) *Launcher {
	t.Helper()
	port := healthServer(t, healthy)
	l, err := Open(Config{
		StateDir: filepath.Join(dir, "state"), HermesHome: dir, Self: exe, Core: "/bin/false", NoShim: true, NoBootReap: true,
		Backends:    []runspec.Spec{{Name: "unit", Command: []string{"/bin/sh", "-c", fmt.Sprintf(scriptReadyLine, port)}, Grace: 2 * time.Second}},
		Containment: model.ContainmentProcessTree, Logger: slog.New(slog.DiscardHandler), Announce: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Shutdown() })
	l.Start()
	waitState(t, l, model.StateReady)
	return l
}

// checkLetGo checks that a launcher that shut down during a failed handoff
// holds nothing: not handed over, the state dir free, nobody on the
// socket.
func checkLetGo(t *testing.T, l *Launcher) {
	t.Helper()
	select {
	case <-l.HandedOff():
		t.Error("the launcher says it was handed over, but no successor came up")
	default:
	}
	stateDir := l.StateDir()
	lock, err := lockfile.AcquireInstance(stateDir)
	if err != nil {
		t.Errorf("after shutdown and the failed handoff, the state dir is still held: %v", err)
	} else {
		_ = lock.Release()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := protocol.StatusOf(ctx, stateDir); err == nil {
		t.Error("after shutdown and the failed handoff, something still answers on the control socket")
	}
}

// waitState waits until every backend of l is in state.
func waitState(t *testing.T, l *Launcher, state model.State) {
	t.Helper()
	var st model.Status
	if !waitfor.Try(waitLimit, func() bool {
		st = l.Status()
		ok := len(st.Backends) > 0
		for _, b := range st.Backends {
			ok = ok && b.State == state
		}
		return ok
	}) {
		t.Fatalf("backends: got %+v, want all %s within %v", st.Backends, state, waitLimit)
	}
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	if !waitfor.Try(waitLimit, func() bool { _, err := os.Stat(path); return err == nil }) {
		t.Fatalf("%s did not appear within %v", path, waitLimit)
	}
}
