//go:build unix

package remotewd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
	"hermes-desktop/watchdog/netns"
)

// makeLockDir creates ~/.hermes/desktop-ssh/<ownership id>, mode 0700,
// new: an existing one (a leftover, someone else's) is never reused.
func (r *remoteRun) makeLockDir() error {
	root := hermes.SSHRoot(r.home)
	if err := os.MkdirAll(root, hermes.SSHDirMode); err != nil {
		return fmt.Errorf("watchdog-remote: %w", err)
	}
	if err := ownDir(root); err != nil {
		return err
	}
	r.dir = filepath.Join(root, r.o.OwnershipID)
	if err := os.Mkdir(r.dir, hermes.SSHDirMode); err != nil {
		r.dir = "" // not ours to remove
		return fmt.Errorf("watchdog-remote: ownership directory: %w", err)
	}
	return os.Chmod(r.dir, hermes.SSHDirMode) // past the umask
}

// ownDir checks that dir is a real directory of this user that no one else
// may write in.
func ownDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("watchdog-remote: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("watchdog-remote: %s is not a directory of this user closed to others", dir)
	}
	return nil
}

// command is the backend's argv: its executable resolved (a Hermes kind's
// `hermes` falls back to ~/.local/bin, then to this core's built-in
// backend), with Hermes' SSH flags when the token goes through a file,
// which is written here.
func (r *remoteRun) command(token string) ([]string, error) {
	argv := append([]string(nil), r.o.Argv...)
	path, err := exec.LookPath(argv[0])
	if err != nil && argv[0] == "hermes" {
		path, err = r.fallbackHermes()
	}
	if err != nil {
		return nil, fmt.Errorf("watchdog-remote: %s: %w", argv[0], err)
	}
	argv[0] = path
	if r.o.Token != TokenFile {
		return argv, nil
	}
	file := hermes.SSHTokenFile(r.home, r.o.OwnershipID, r.o.SpawnNonce)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, hermes.SSHTokenFileMode)
	if err != nil {
		return nil, fmt.Errorf("watchdog-remote: token file: %w", err)
	}
	_, err = f.WriteString(token)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("watchdog-remote: token file: %w", err)
	}
	return append(argv, hermes.FlagSSHSessionTokenFile, file, hermes.FlagSSHOwnerNonce, r.o.SpawnNonce), nil
}

// fallbackHermes finds hermes where installers put it off a
// non-interactive PATH, else this core (its built-in backend).
func (r *remoteRun) fallbackHermes() (string, error) {
	for _, p := range []string{filepath.Join(r.home, ".local", "bin", "hermes")} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return os.Executable()
}

// startHeld starts argv held by RemoteHoldSubcommand: the process exists
// (its PID and start are known) but runs the backend only once the
// returned pipe gets a byte; EOF on it ends the process instead. With iso
// active it starts in new user and network namespaces and prepares them
// (netns.HoldPrepare) before it waits.
func (r *remoteRun) startHeld(argv, env []string, tree *cgroup.Cgroup, rel *relay, iso *netns.Isolation) (proc.Identity, *os.File, error) {
	self, err := os.Executable()
	if err != nil {
		return proc.Identity{}, nil, fmt.Errorf("watchdog-remote: %w", err)
	}
	holdR, holdW, err := os.Pipe()
	if err != nil {
		return proc.Identity{}, nil, fmt.Errorf("watchdog-remote: %w", err)
	}
	defer holdR.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		holdW.Close()
		return proc.Identity{}, nil, fmt.Errorf("watchdog-remote: %w", err)
	}
	defer devnull.Close()
	attr := &os.ProcAttr{Env: env, Files: []*os.File{devnull, rel.outW, rel.errW, holdR}}
	full := []string{self, RemoteHoldSubcommand}
	if iso.Active() {
		flag, files := iso.HoldArgs()
		full, attr.Files = append(full, flag, argsEnd), append(attr.Files, files...)
		if attr.Sys, err = netns.Attr(); err != nil {
			holdW.Close()
			return proc.Identity{}, nil, err
		}
	}
	full = append(full, argv...)
	var p *os.Process
	if tree != nil {
		p, err = watchdog.StartProcessIn(tree, self, full, attr)
	} else {
		p, err = os.StartProcess(self, full, attr)
	}
	if err != nil {
		holdW.Close()
		return proc.Identity{}, nil, fmt.Errorf("watchdog-remote: start %s: %w", argv[0], err)
	}
	rel.started()
	id, err := proc.Lookup(p.Pid)
	_ = p.Release() // collected by the shim loop's wait4(-1)
	if err != nil {
		holdW.Close()
		_ = syscall.Kill(p.Pid, syscall.SIGKILL)
		return proc.Identity{}, nil, fmt.Errorf("watchdog-remote: identify backend %d: %w", p.Pid, err)
	}
	return id, holdW, nil
}

// own writes our session file, then Hermes' lock, both naming the held
// backend.
func (r *remoteRun) own(self, child proc.Identity, exe, token string, tree *cgroup.Cgroup) error {
	r.sess = RemoteSession{
		OwnershipID: r.o.OwnershipID, SpawnNonce: r.o.SpawnNonce, Shim: self, Backend: child,
		Created: time.Now().UTC(), Secret: r.keys.sessionSecret(),
	}
	if tree != nil {
		r.sess.Cgroup = tree.Path()
	}
	sdir := filepath.Join(r.home, RemoteSessionsDir)
	if err := os.MkdirAll(sdir, 0o700); err != nil {
		return fmt.Errorf("watchdog-remote: %w", err)
	}
	if err := ownDir(sdir); err != nil {
		return err
	}
	if err := r.writeSession(); err != nil {
		return err
	}
	profile := r.o.Profile
	if profile == "" {
		profile = "default"
	}
	hermesHome := os.Getenv(hermes.EnvHome)
	if hermesHome == "" {
		hermesHome = filepath.Join(r.home, hermes.HomeDirName)
	}
	r.lock = hermes.SSHLock{
		SchemaVersion: 2, ProtocolVersion: 1, OwnershipID: r.o.OwnershipID, SpawnNonce: r.o.SpawnNonce,
		TokenFingerprint: hermes.SSHTokenFingerprint(token), PID: child.PID, Profile: profile,
		HermesPath: exe, HermesHome: hermesHome, LogPath: filepath.Join(r.dir, r.o.SpawnNonce+".log"),
		StartedAt: time.Now().UTC().Format(time.RFC3339),
	}
	if strings.HasPrefix(child.Start, "linux:") {
		r.lock.CreationTime = child.Start // Hermes' own form
	}
	return r.writeLock()
}

// writeSession writes our session file (0600: it holds the session secret).
func (r *remoteRun) writeSession() error {
	if err := lockfile.WriteJSON(filepath.Join(r.home, RemoteSessionsDir, r.o.OwnershipID+".json"), r.sess); err != nil {
		return fmt.Errorf("watchdog-remote: session file: %w", err)
	}
	return nil
}

// writeLock writes the lock atomically, checked as Hermes reads it.
func (r *remoteRun) writeLock() error {
	data, err := json.Marshal(r.lock)
	if err != nil {
		return err
	}
	if _, err := hermes.ParseSSHLock(data, r.o.OwnershipID); err != nil {
		return fmt.Errorf("watchdog-remote: lock: %w", err)
	}
	if err := lockfile.WriteJSON(filepath.Join(r.dir, hermes.SSHLockName), r.lock); err != nil {
		return fmt.Errorf("watchdog-remote: lock: %w", err)
	}
	return nil
}

// cleanup removes what this run made: its ownership directory (lock,
// token file, log) and our session file. Only once the tree is gone.
func (r *remoteRun) cleanup() {
	r.iso.Close(r.log)
	if r.dir != "" {
		if err := os.RemoveAll(r.dir); err != nil {
			r.log.Warn("remove the ownership directory", "err", err)
		}
	}
	if r.home != "" {
		err := os.Remove(filepath.Join(r.home, RemoteSessionsDir, r.o.OwnershipID+".json"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			r.log.Warn("remove the session file", "err", err)
		}
	}
}

// HoldMain is RemoteHoldSubcommand: wait for the remote watchdog's
// go-ahead on fd 3, then become the backend (exec keeps the PID its lock
// names). EOF instead means the backend must not run.
//
// With netns.HoldFlag it runs in new namespaces and prepares them first
// (netns.HoldPrepare): its thread is locked, since the capability it drops
// there before the exec is that thread's.
func HoldMain(args []string) int {
	env := os.Environ()
	if len(args) > 1 && strings.HasPrefix(args[0], netns.HoldFlag) && args[1] == argsEnd {
		runtime.LockOSThread() // never unlocked: this thread execs the backend
		set, err := netns.HoldPrepare(strings.TrimPrefix(args[0], netns.HoldFlag))
		if err != nil {
			fmt.Fprintf(os.Stderr, "watchdog-hold: %v\n", err)
			return 1
		}
		env, args = netns.WithEnv(env, set), args[2:]
	}
	if len(args) == 0 {
		return watchdog.ExitUsage
	}
	hold := os.NewFile(3, "hold")
	b := make([]byte, 1)
	n, _ := hold.Read(b)
	hold.Close()
	if n != 1 {
		return watchdog.ExitParentGone
	}
	err := syscall.Exec(args[0], args, env)
	fmt.Fprintf(os.Stderr, "watchdog-hold: exec %s: %v\n", args[0], err)
	return watchdog.ExecExitCode(err)
}
