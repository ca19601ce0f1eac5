package watchdog

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/platform/proc"

	"hermes-desktop/internal/waitfor"
)

func startParent(t *testing.T) (*exec.Cmd, Parent) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	id, err := proc.Lookup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, Parent{PID: id.PID, Start: id.Start}
}

func watchAsync(ctx context.Context, opts Options) <-chan Reason {
	c := make(chan Reason, 1)
	go func() {
		r, _ := Watch(ctx, opts)
		c <- r
	}()
	return c
}

func TestWatchSeesExitThroughPidfd(t *testing.T) {
	cmd, parent := startParent(t)
	got := watchAsync(context.Background(), Options{Parent: parent, PollInterval: -1})
	time.Sleep(20 * time.Millisecond)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	select {
	case r := <-got:
		if r != ReasonExitNotify {
			t.Errorf("reason: got %q, want %q", r, ReasonExitNotify)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("parent death not seen")
	}
}

func TestWatchSeesLifelineEOF(t *testing.T) {
	_, parent := startParent(t) // stays alive: only the lifeline can fire
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var lines []string
	got := watchAsync(context.Background(), Options{Parent: parent, Lifeline: r, PollInterval: -1, NoExitNotify: true,
		OnMessage: func(s string) { lines = append(lines, s) }})
	_, _ = w.WriteString("hello\n")
	w.Close()
	select {
	case reason := <-got:
		if reason != ReasonLifeline || len(lines) != 1 || lines[0] != "hello" {
			t.Errorf("got %q with messages %q, want lifeline EOF after one message", reason, lines)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("lifeline EOF not seen")
	}
}

func TestWatchParentAlreadyGone(t *testing.T) {
	cmd, parent := startParent(t)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	r, err := Watch(context.Background(), Options{Parent: parent})
	if err != nil || r != ReasonGone {
		t.Errorf("got %q, %v; want %q", r, err, ReasonGone)
	}
	reused := Parent{PID: os.Getpid(), Start: "linux:1"} // our PID, another start: a reused PID
	if r, _ := Watch(context.Background(), Options{Parent: reused}); r != ReasonGone {
		t.Errorf("reused PID: got %q, want %q", r, ReasonGone)
	}
}

func TestWatchCancelEndsEveryGoroutine(t *testing.T) {
	_, parent := startParent(t)
	r, w, _ := os.Pipe()
	defer w.Close()
	defer r.Close()
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Watch(ctx, Options{Parent: parent, Lifeline: r, PollInterval: 10 * time.Millisecond})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return after cancel")
	}
	waitfor.Try(2*time.Second, func() bool { return runtime.NumGoroutine() <= before })
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("goroutines: %d after Watch returned, %d before", n, before)
	}
}

func TestParentFromEnv(t *testing.T) {
	cases := []struct {
		pid, marker, nonce string
		ok, wantErr        bool
	}{
		{"", "", "", false, false},
		{"1234", "linux:5", "00112233445566778899aabbccddeeff", true, false},
		{"1234", "", "", true, false},
		{"1234", "linux:5", "", false, true},
		{"1234", "", "abcd", false, true},
		{"1", "", "", false, true},
		{"x", "", "", false, true},
		{"1234", "bogus", "n", false, true},
	}
	for _, tc := range cases {
		t.Setenv(hermes.EnvParentPID, tc.pid)
		t.Setenv(hermes.EnvParentMarker, tc.marker)
		t.Setenv(hermes.EnvParentNonce, tc.nonce)
		p, ok, err := ParentFromEnv()
		if ok != tc.ok || (err != nil) != tc.wantErr {
			t.Errorf("%+v: got %+v ok=%v err=%v", tc, p, ok, err)
		}
		if ok && strconv.Itoa(p.PID) != tc.pid {
			t.Errorf("pid: got %d, want %s", p.PID, tc.pid)
		}
	}
}

// A handoff: the owner message switches the watch to the new owner, and the
// old owner's exit that follows is not taken for a death.
func TestFollowOwnerSwitchesOnMessage(t *testing.T) {
	oldCmd, oldOwner := startParent(t)
	newCmd, newOwner := startParent(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	got := make(chan Reason, 1)
	go func() {
		reason, _ := followOwner(context.Background(), oldOwner, r, nil, nil, slog.New(slog.DiscardHandler))
		got <- reason
	}()
	id := proc.Identity{PID: newOwner.PID, Start: newOwner.Start}
	if _, err := w.WriteString(FormatOwner(id)); err != nil {
		t.Fatal(err)
	}
	_ = oldCmd.Process.Kill() // the old launcher exits right after the handoff
	_ = oldCmd.Wait()
	select {
	case reason := <-got:
		t.Fatalf("the old owner's exit was taken for a death (%q)", reason)
	case <-time.After(300 * time.Millisecond):
	}
	_ = newCmd.Process.Kill()
	_ = newCmd.Wait()
	select {
	case reason := <-got:
		if reason != ReasonExitNotify {
			t.Errorf("reason: got %q, want %q", reason, ReasonExitNotify)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the new owner's death was not seen")
	}
}

func TestParseOwner(t *testing.T) {
	for line, ok := range map[string]bool{
		"owner 1234 linux:5": true, "owner 1 linux:5": false, "owner x linux:5": false,
		"owner 1234 bogus": false, "start": false, "owner 1234": false,
	} {
		if _, got := parseOwner(line); got != ok {
			t.Errorf("parseOwner(%q): got %v, want %v", line, got, ok)
		}
	}
}
