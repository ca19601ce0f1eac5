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
