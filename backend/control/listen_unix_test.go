//go:build linux || darwin

package control

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestSocketMode(t *testing.T) {
	s, err := Listen(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("socket mode: got %v, want 0600", got)
	}
}

func TestListenReplacesStaleSocketOnly(t *testing.T) {
	dir := t.TempDir()
	s, err := Listen(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Simulate a crashed instance: the socket file stays behind.
	s.ln.(*net.UnixListener).SetUnlinkOnClose(false)
	s.Close()
	s2, err := Listen(dir, nil)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	s2.Close()

	other := t.TempDir()
	path := filepath.Join(other, SocketName)
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(other, nil); err == nil {
		t.Fatal("Listen replaced a regular file")
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Errorf("regular file was touched")
	}
}
