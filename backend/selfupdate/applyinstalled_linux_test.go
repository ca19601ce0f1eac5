package selfupdate

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/contract/errkind"
	"hermes-desktop/internal/waitfor"
)

// childSuccessor is a real child standing in for the new instance.
type childSuccessor struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

func (c *childSuccessor) PID() int                    { return c.cmd.Process.Pid }
func (c *childSuccessor) Exited() <-chan struct{}     { return c.exited }
func (c *childSuccessor) ExitState() *os.ProcessState { return c.cmd.ProcessState }
func (c *childSuccessor) Stop()                       { _ = c.cmd.Process.Kill(); <-c.exited }

// handOffHost is an idle launcher whose handoff starts a real child, or
// fails before the commit when refuse is set. It records what it was asked.
type handOffHost struct {
	idleHost
	t      *testing.T
	mu     sync.Mutex
	refuse bool
	args   []protocol.HandoffArgs
	over   int
}

func (h *handOffHost) HandOff(_ context.Context, args protocol.HandoffArgs) (Successor, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.args = append(h.args, args)
	if h.refuse {
		return nil, errors.New("handoff: the new instance exited before taking over")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		h.t.Fatalf("start the stand-in: %v", err)
	}
	c := &childSuccessor{cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(c.exited)
	}()
	h.t.Cleanup(c.Stop)
	return c, nil
}

func (h *handOffHost) HandedOver() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.over++
}

// Restart to apply is refused until a package upgrade replaced our
// executable (inotify sees the rename); then it hands over to that file in
// adopt mode, and tells the launcher it is handed over only once a
// successor owns the backends.
func TestApplyInstalledHandsOverToTheReplacedExecutable(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "hermes-desktop")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := &handOffHost{t: t}
	u := newTestUpdaterOn(t, Config{Exe: exe, CheckInterval: -1}, h)
	u.Start()
	if err := u.ApplyInstalled(t.Context()); !errors.Is(err, errkind.ErrRefused) || len(h.args) != 0 {
		t.Fatalf("before an upgrade: got %v after %d handoffs, want refused and none", err, len(h.args))
	}

	// As dpkg does: the new file is written aside and renamed over.
	if err := os.WriteFile(exe+".dpkg-new", []byte("#!/bin/sh\n# 1.1.0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(exe+".dpkg-new", exe); err != nil {
		t.Fatal(err)
	}
	var path string
	if !waitfor.Try(10*time.Second, func() bool { p, ok := u.NewExecutable(); path = p; return ok }) {
		t.Fatal("the replaced executable was never noticed")
	}
	if path != exe {
		t.Fatalf("replaced: got %s, want %s", path, exe)
	}
	if h.published.Load() == 0 {
		t.Error("status was not told about the replaced executable")
	}

	h.refuse = true
	if err := u.ApplyInstalled(t.Context()); err == nil || h.over != 0 {
		t.Fatalf("failed handoff: got %v, handed over %d times; want the error and still in charge", err, h.over)
	}
	h.refuse = false
	if err := u.ApplyInstalled(t.Context()); err != nil || h.over != 1 {
		t.Fatalf("handoff: got %v, handed over %d times; want nil, once", err, h.over)
	}
	for _, a := range h.args {
		if a.To != exe || a.Mode != protocol.HandoffAdopt {
			t.Errorf("handoff asked for %s in mode %q, want %s in adopt mode", a.To, a.Mode, exe)
		}
	}
}
