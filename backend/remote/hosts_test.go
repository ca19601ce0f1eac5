package remote

import (
	"runtime"
	"testing"

	"hermes-desktop/backend/ssh"
	"hermes-desktop/backend/wsl"
)

// A "wsl:" host goes through wsl.exe, any other through ssh; a bad WSL
// distribution name is refused before anything runs.
func TestHostsTransport(t *testing.T) {
	hs := NewHosts(Config{}, t.TempDir(), "/opt/hd/hermes-desktop", "1.0.0")
	tr, err := hs.transport("wsl:Ubuntu-22.04")
	if _, ok := tr.(*wsl.Transport); err != nil || !ok {
		t.Errorf("wsl:Ubuntu-22.04: got %T, %v; want a WSL transport", tr, err)
	}
	if _, err := hs.transport("wsl:-bad name"); err == nil {
		t.Error("wsl:-bad name: got no error")
	}
	tr, err = hs.transport("me@server")
	if runtime.GOOS == "windows" {
		if err == nil {
			t.Errorf("me@server on Windows: got %T, want ErrNoMultiplexing", tr)
		}
		return
	}
	if _, ok := tr.(*ssh.Host); err != nil || !ok {
		t.Errorf("me@server: got %T, %v; want an ssh host", tr, err)
	}
}

// An ssh config file saved while the app runs is read by the next
// connection: a host never reached (or given up on) is made anew with it,
// so a backend added next finds an alias only that file defines.
func TestHostsReadTheSSHConfigSavedSince(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no ssh transport on Windows")
	}
	hs := NewHosts(Config{SSHConfig: "/old"}, t.TempDir(), "/opt/hd/hermes-desktop", "1.0.0")
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
