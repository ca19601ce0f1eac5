package remote

import (
	"testing"
	"time"

	"hermes-desktop/backend/ssh"
	"hermes-desktop/backend/wsl"
)

// A "wsl:" host goes through wsl.exe, any other through ssh; a bad WSL
// distribution name is refused before anything runs.
func TestHostsTransport(t *testing.T) {
	hs := NewHosts(Config{}, "/opt/hd/hermes-desktop", "1.0.0")
	m, err := hs.machine("wsl:Ubuntu-22.04")
	if err != nil {
		t.Fatalf("wsl:Ubuntu-22.04: %v", err)
	}
	if _, ok := m.t.(*wsl.Transport); !ok || m.boot != nil {
		t.Errorf("wsl:Ubuntu-22.04: got %T (boot %v); want a WSL transport, no bootstrap", m.t, m.boot)
	}
	if _, err := hs.machine("wsl:-bad name"); err == nil {
		t.Error("wsl:-bad name: got no error")
	}
	// Every OS, Windows' ssh.exe included: one session carrying our
	// multiplexer needs nothing of ssh's own.
	m, err = hs.machine("me@server")
	if err != nil {
		t.Fatalf("me@server: %v", err)
	}
	if _, ok := m.t.(*ssh.Host); !ok || m.boot == nil {
		t.Errorf("me@server: got %T (boot %v); want an ssh host with its bootstrap", m.t, m.boot)
	}
}

// An ssh config file saved while the app runs is read by the next
// connection: a host never reached (or given up on) is made anew with it,
// so a backend added next finds an alias only that file defines.
func TestHostsReadTheSSHConfigSavedSince(t *testing.T) {
	hs := NewHosts(Config{SSHConfig: "/old"}, "/opt/hd/hermes-desktop", "1.0.0")
	defer hs.Close()
	first, err := hs.Get("wtbox")
	if err != nil || first.sshConfig != "/old" {
		t.Fatalf("Get: %v, config %q", err, first.sshConfig)
	}
	if again, _ := hs.Get("wtbox"); again != first {
		t.Error("an unchanged config made a second connection")
	}
	hs.SetSSHConfig("/home/u/.ssh/wt")
	next, err := hs.Get("wtbox")
	if err != nil || next == first || next.sshConfig != "/home/u/.ssh/wt" {
		t.Fatalf("after the save: %v, same host %v, config %q; want a new connection reading the new file", err, next == first, next.sshConfig)
	}
	if len(hs.retired) != 1 {
		t.Errorf("the replaced connection is not kept for Close: %d retired", len(hs.retired))
	}
}

// The keepalive interval is a sixth of the grace, within 1..15 s, so that
// a dead connection is seen well within the grace.
func TestAliveInterval(t *testing.T) {
	for _, c := range []struct{ grace, want time.Duration }{
		{0, time.Second}, {3 * time.Second, time.Second}, {30 * time.Second, 5 * time.Second},
		{60 * time.Second, 10 * time.Second}, {10 * time.Minute, 15 * time.Second},
	} {
		if got := aliveInterval(c.grace); got != c.want {
			t.Errorf("aliveInterval(%s): got %s, want %s", c.grace, got, c.want)
		}
	}
}
