//go:build unix

package ssh

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"hermes-desktop/platform/proc"
)

func TestSweepStaleRemovesOnlyDeadSockets(t *testing.T) {
	dir := t.TempDir()
	live, err := net.Listen("unix", filepath.Join(dir, "cm-live"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "cm-dead"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false) // as a SIGKILLed master leaves it
	dead.Close()
	other, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "not-ours"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	other.SetUnlinkOnClose(false)
	other.Close()
	if err := os.WriteFile(filepath.Join(dir, "cm-file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if n := SweepStale(dir); n != 1 {
		t.Errorf("removed %d, want 1 (cm-dead)", n)
	}
	for name, want := range map[string]bool{"cm-live": true, "cm-dead": false, "not-ours": true, "cm-file": true} {
		if _, err := os.Lstat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s: exists=%v, want %v", name, err == nil, want)
		}
	}
}

func TestControlNameDiffersPerOwner(t *testing.T) {
	o := Options{Destination: "box", ConfigFile: "/c"}
	a := controlName(o, proc.Identity{PID: 10, Start: "linux:1"})
	if b := controlName(o, proc.Identity{PID: 11, Start: "linux:2"}); a == b {
		t.Errorf("two instances share control socket %s: the one that exits removes the other's", a)
	}
	if b := controlName(o, proc.Identity{PID: 10, Start: "linux:1"}); a != b {
		t.Errorf("one owner, two names: %s, %s", a, b)
	}
}
