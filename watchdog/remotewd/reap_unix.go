//go:build unix

package remotewd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog/netns"
)

// RemoteReapMain is RemoteReapSubcommand: on a remote host, before a new
// run starts there, it ends what a dead session of ours left (the app's
// watchdog there died, its backend did not) and removes its ownership
// files. Only our own session files (RemoteSessionsDir) are looked at, and
// a process is signalled only when it is the backend that file names (PID
// and start time), its watchdog provably gone, and it is this user's:
// never another desktop's lock, another user's process, or a session whose
// watchdog lives (a running app's, here or elsewhere). It prints a
// RemoteReapReport as one JSON line.
func RemoteReapMain(stdout, stderr io.Writer) int {
	home, err := os.UserHomeDir()
	if err != nil {
		fmt.Fprintln(stderr, "watchdog-remote-reap:", err)
		return 1
	}
	rep := reapSessions(home, 2*time.Second)
	if err := json.NewEncoder(stdout).Encode(rep); err != nil {
		return 1
	}
	return 0
}

// reapSessions applies the rule above to every session file under home.
func reapSessions(home string, grace time.Duration) RemoteReapReport {
	rep := RemoteReapReport{Decisions: []RemoteReapDecision{}}
	dir := filepath.Join(home, RemoteSessionsDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			rep.Error = err.Error()
		}
		return rep
	}
	if err := ownDir(dir); err != nil {
		rep.Error = err.Error() // someone else's directory: nothing in it is evidence
		return rep
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !hermes.ValidOwnershipID(id) {
			continue
		}
		rep.Decisions = append(rep.Decisions, reapSession(home, filepath.Join(dir, e.Name()), id, grace))
	}
	return rep
}

func reapSession(home, file, id string, grace time.Duration) RemoteReapDecision {
	d := RemoteReapDecision{OwnershipID: id}
	data, err := lockfile.ReadLimited(file, hermes.MaxOwnershipFileSize)
	var s RemoteSession
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err == nil && (s.OwnershipID != id || !hermes.ValidSpawnNonce(s.SpawnNonce) || s.Shim.Validate() != nil || s.Backend.Validate() != nil) {
		err = errors.New("its fields do not match its name")
	}
	if err != nil {
		d.Action, d.Reason = "spared", "our session file is unreadable ("+err.Error()+"): nothing is signalled or removed"
		return d
	}
	d.PID = s.Backend.PID
	if alive, _ := proc.Alive(s.Shim); alive {
		d.Action, d.Reason = "spared", fmt.Sprintf("its watchdog (PID %d) is alive: a running app's session", s.Shim.PID)
		return d
	}
	if alive, _ := proc.Alive(s.Backend); alive {
		if err := endTree(s.Backend, grace); err != nil {
			d.Action, d.Reason = "spared", "its watchdog is gone but the backend could not be ended: "+err.Error()
			return d
		}
		d.Action, d.Reason = "killed", fmt.Sprintf("its watchdog (PID %d) is gone and it is the backend our session file names (same start time)", s.Shim.PID)
	} else {
		d.Action, d.Reason = "cleaned", "its watchdog and backend are gone"
	}
	removeSessionCgroup(s.Cgroup)
	removeSessionFiles(home, file, s)
	return d
}

// removeSessionCgroup removes the tree cgroup of a session whose tree is
// gone: only a backend cgroup's name, only once nothing is in it (fail
// closed: a populated one is left as it is).
func removeSessionCgroup(path string) {
	if _, ok := lockfile.CgroupNonce(path); !ok {
		return
	}
	c, err := cgroup.Open(path)
	if err != nil {
		return
	}
	if populated, err := c.Populated(); err != nil || populated {
		return
	}
	_ = c.Remove()
}

// endTree ends the backend and its descendants (proc.Teardown: SIGTERM,
// grace, SIGKILL), each process signalled through a handle opened before
// its identity was checked. The group is not signalled as a whole: the
// backend is not our child, so its group id is not pinned.
func endTree(backend proc.Identity, grace time.Duration) error {
	// The process table's uid, not /proc/PID's owner: a process that
	// changed its uid is not dumpable, and its /proc entry is root's.
	p, err := proc.Stat(backend.PID)
	if err != nil {
		return fmt.Errorf("read its owner: %w", err)
	}
	if p.UID != os.Getuid() {
		return fmt.Errorf("it is another user's process (uid %d)", p.UID)
	}
	h, err := proc.Open(backend)
	if proc.IsGone(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open it: %w", err)
	}
	defer h.Close()
	tree := &proc.Teardown{Root: backend.PID, Leader: h}
	defer tree.Close()
	if !tree.End(context.Background(), grace) {
		return fmt.Errorf("processes %v still alive after SIGKILL", tree.Alive())
	}
	return nil
}

// removeSessionFiles removes the session's ownership directory, when its
// lock is the session's (or gone), its namespace's directory (sockets no
// one serves any more), then the session file.
func removeSessionFiles(home, file string, s RemoteSession) {
	_ = os.RemoveAll(filepath.Join(home, netns.Dir, s.OwnershipID))
	dir := filepath.Join(hermes.SSHRoot(home), s.OwnershipID)
	data, err := lockfile.ReadLimited(filepath.Join(dir, hermes.SSHLockName), hermes.MaxOwnershipFileSize)
	switch {
	case err == nil:
		if l, perr := hermes.ParseSSHLock(data, s.OwnershipID); perr == nil && l.SpawnNonce == s.SpawnNonce {
			_ = os.RemoveAll(dir)
		}
	case errors.Is(err, os.ErrNotExist):
		_ = os.RemoveAll(dir) // the lock went first; what is left is ours
	}
	// The watchdog is gone: its claim socket, when it left one, is dead.
	sock := ClaimSocket(home, s.OwnershipID)
	if fi, err := os.Lstat(sock); err == nil && deadSocketOfOurs(sock, fi) == nil {
		_ = os.Remove(sock)
	}
	_ = os.Remove(file)
}
