package reap

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/reapreport"
	"hermes-desktop/lockfile"
)

// writeLock writes a valid Hermes SSH lock naming pid under dir
// (a desktop-ssh directory).
func writeLock(t *testing.T, dir string, pid int) {
	t.Helper()
	const id = "0123456789abcdef0123456789abcdef"
	sub := filepath.Join(dir, id)
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	lock := fmt.Sprintf(`{"schemaVersion":2,"protocolVersion":1,"ownershipId":%q,"spawnNonce":"0011223344556677",
"tokenFingerprint":"00112233445566778899aabbccddeeff","pid":%d,"port":41000,"profile":"default","hermesPath":"/usr/bin/hermes",
"hermesHome":"/home/u/.hermes","logPath":"/home/u/.hermes/desktop-ssh/%s/0011223344556677.log","startedAt":"2026-11-29T10:00:00Z"}`,
		id, pid, id)
	if err := os.WriteFile(filepath.Join(sub, "backend.lock.json"), []byte(lock), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestEvidenceReadsSSHLocksUnderHome: with HERMES_HOME elsewhere, a lock
// Hermes Desktop wrote under ~/.hermes/desktop-ssh still spares its
// process; an unreadable home lock directory fails closed.
func TestEvidenceReadsSSHLocksUnderHome(t *testing.T) {
	base := t.TempDir()
	o := Options{StateDir: filepath.Join(base, "state"), HermesHome: filepath.Join(base, "hermes-home"),
		UserHome: filepath.Join(base, "user")}
	if err := lockfile.EnsureDir(o.StateDir); err != nil {
		t.Fatal(err)
	}
	homeLocks := filepath.Join(o.UserHome, ".hermes", "desktop-ssh")
	writeLock(t, homeLocks, target)
	ev, err := readEvidence(o)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld()
	w.ev = ev
	if d, _ := w.judge(t); d.Action != reapreport.ActionSpared || d.Reason != reapreport.ReasonSSHLock {
		t.Errorf("got %v/%v (%s), want spared/%s", d.Action, d.Reason, d.Detail, reapreport.ReasonSSHLock)
	}

	// The home lock directory cannot be listed: orphans fail closed.
	if err := os.RemoveAll(homeLocks); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(homeLocks, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if ev, err = readEvidence(o); err != nil {
		t.Fatal(err)
	}
	w = newWorld()
	w.ev = ev
	if d, _ := w.judge(t); d.Action != reapreport.ActionSpared || d.Reason != reapreport.ReasonFailClosed {
		t.Errorf("got %v/%v (%s), want spared/%s", d.Action, d.Reason, d.Detail, reapreport.ReasonFailClosed)
	}
}

// TestRunRefusesNegativeMinAge: only nil (the default) and values >= 0
// (0: no minimum) are minimum ages.
func TestRunRefusesNegativeMinAge(t *testing.T) {
	dir := t.TempDir()
	_, err := Run(t.Context(), Options{StateDir: dir, HermesHome: dir, UserHome: dir, MinAge: new(-time.Second), DryRun: true})
	if err == nil || !strings.Contains(err.Error(), "negative minimum age") {
		t.Errorf("got %v, want a negative minimum age error", err)
	}
}
