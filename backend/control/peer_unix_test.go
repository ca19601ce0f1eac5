//go:build linux || darwin

package control

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// peerHelperEnv makes the test binary act as a bare client: connect to the
// socket it names and wait for the server to hang up.
const peerHelperEnv = "HERMES_DESKTOP_TEST_PEER_SOCKET"

func TestMain(m *testing.M) {
	if path := os.Getenv(peerHelperEnv); path != "" {
		c, err := net.Dial("unix", path)
		if err != nil {
			os.Exit(2)
		}
		var b [1]byte
		_, _ = c.Read(b[:])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestCheckPeer(t *testing.T) {
	// A socket (and a copy of this binary) anyone may reach, so that only
	// checkPeer stands in the way. t.TempDir's parent is private.
	dir, err := os.MkdirTemp("", "peer-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "client")
	if err := copyFile(exe, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "peer.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// A client that cannot connect must not leave Accept blocked forever.
	if err := ln.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o777); err != nil {
		t.Fatal(err)
	}
	accept := func(cred *syscall.Credential) error {
		t.Helper()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), peerHelperEnv+"="+path)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait() // it exits once we hang up
		conn, err := ln.AcceptUnix()
		if err != nil {
			_ = cmd.Process.Kill() // our child, not yet waited for
			t.Fatal(err)
		}
		defer conn.Close()
		return checkPeer(conn)
	}

	if err := accept(nil); err != nil {
		t.Fatalf("our own uid was refused: %v", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("refusing another uid needs root to start a client as one")
	}
	for d := filepath.Dir(dir); d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("%s is not searchable by another uid", d)
		}
	}
	err = accept(&syscall.Credential{Uid: 65534, Gid: 65534})
	if err == nil || !strings.Contains(err.Error(), "peer uid 65534 is not ours") {
		t.Fatalf("another uid's connection: %v, want a refusal", err)
	}
}

// copyFile copies this test binary to dst with mode perm.
func copyFile(dst string, perm os.FileMode) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, perm)
}
