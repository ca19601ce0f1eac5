package cgroup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"hermes-desktop/platform/proc"
)

// Cgroup is one cgroup v2 directory. The zero value names none; get one
// from Open or Create.
type Cgroup struct {
	path string // in the hierarchy: "/a/b"
	dir  string // on the file system: "<mount>/a/b"
}

// cgroupMount is where the v2 hierarchy is mounted and which of its paths
// the mount's root shows (not "/" when a subtree is bind-mounted).
type cgroupMount struct {
	dir  string
	root string
}

var findMount = sync.OnceValues(readCgroupMount)

// readCgroupMount finds the cgroup2 mount in /proc/self/mountinfo (proc(5):
// field 4 is the root within the file system, field 5 the mount point; the
// file system type follows the " - " separator).
func readCgroupMount() (cgroupMount, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return cgroupMount{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, fsType := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(fsType) < 1 || fsType[0] != "cgroup2" {
			continue
		}
		return cgroupMount{dir: unescapeMountinfo(f[4]), root: unescapeMountinfo(f[3])}, nil
	}
	return cgroupMount{}, fmt.Errorf("%w: no cgroup2 mount in /proc/self/mountinfo", ErrUnavailable)
}

// unescapeMountinfo undoes the kernel's octal escapes (\040 for a space).
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Mount returns the directory the cgroup v2 hierarchy is mounted on.
func Mount() (string, error) {
	m, err := findMount()
	return m.dir, err
}

// Own returns the calling process's cgroup v2 path.
func Own() (string, error) { return cgroupOfFile("/proc/self/cgroup") }

// Of returns pid's cgroup v2 path (proc.ErrNotFound when it is gone).
func Of(pid int) (string, error) {
	p, err := cgroupOfFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if proc.Vanished(err) {
		return "", fmt.Errorf("%w: pid %d", proc.ErrNotFound, pid)
	}
	return p, err
}

// cgroupOfFile reads the "0::<path>" line of a /proc/PID/cgroup file.
func cgroupOfFile(file string) (string, error) {
	var buf [4096]byte
	data, err := proc.ReadFile(file, buf[:])
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return strings.TrimSuffix(p, " (deleted)"), nil
		}
	}
	return "", fmt.Errorf("%w: no cgroup v2 line in %s", ErrUnavailable, file)
}

// cgroupDir maps a hierarchy path to its directory, refusing anything that
// is not a clean absolute path or lies outside the mount.
func cgroupDir(p string) (string, error) {
	if !path.IsAbs(p) || path.Clean(p) != p {
		return "", fmt.Errorf("cgroup: cgroup path %q is not clean and absolute", p)
	}
	m, err := findMount()
	if err != nil {
		return "", err
	}
	rel := p
	if m.root != "/" {
		var ok bool
		if rel, ok = strings.CutPrefix(p, m.root); !ok || (rel != "" && rel[0] != '/') {
			return "", fmt.Errorf("cgroup: cgroup %s is outside the mounted subtree %s", p, m.root)
		}
	}
	return m.dir + strings.TrimSuffix(rel, "/"), nil
}

// Writable reports (nil) whether this process may create cgroups
// under p and move processes into them: write access to the directory and
// to its cgroup.procs (the delegation rule for migrations: the common
// ancestor's cgroup.procs must be writable). A read-only mount answers
// EROFS.
func Writable(p string) error {
	dir, err := cgroupDir(p)
	if err != nil {
		return err
	}
	for _, f := range []string{dir, dir + "/cgroup.procs"} {
		if err := unix.Access(f, unix.W_OK); err != nil {
			return fmt.Errorf("cgroup: %s: %w", f, err)
		}
	}
	return nil
}

// Open returns the existing cgroup p.
func Open(p string) (*Cgroup, error) {
	dir, err := cgroupDir(p)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir + "/cgroup.procs"); err != nil {
		return nil, fmt.Errorf("cgroup: open cgroup %s: %w", p, err)
	}
	return &Cgroup{path: p, dir: dir}, nil
}

// Create creates the cgroup p (its parent must exist), or opens it
// when it is already there.
func Create(p string) (*Cgroup, error) {
	dir, err := cgroupDir(p)
	if err != nil {
		return nil, err
	}
	if err := unix.Mkdir(dir, 0o755); err != nil && err != unix.EEXIST {
		return nil, fmt.Errorf("cgroup: create cgroup %s: %w", p, err)
	}
	return &Cgroup{path: p, dir: dir}, nil
}

// Path returns the cgroup's path in the hierarchy.
func (c *Cgroup) Path() string { return c.path }

// Children lists the names of c's child cgroups.
func (c *Cgroup) Children() ([]string, error) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, fmt.Errorf("cgroup: list cgroup %s: %w", c.path, err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// Members lists the processes in c and in every cgroup below it. A cgroup
// that vanishes while it is read has no members.
func (c *Cgroup) Members() ([]int, error) {
	var pids []int
	var buf [4096]byte // a few hundred members; more falls back to os.ReadFile
	err := walkCgroup(c.dir, func(dir string) error {
		// Raw reads: the leak guard lists members at every sample, and
		// os.ReadFile registers the file with the poller, which wakes
		// another thread of an otherwise idle launcher.
		data, err := proc.ReadFile(dir+"/cgroup.procs", buf[:])
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cgroup: members of %s: %w", dir, err)
		}
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
		return nil
	})
	return pids, err
}

// walkCgroup calls fn for dir and every cgroup below it, parents first.
func walkCgroup(dir string, fn func(dir string) error) error {
	if err := fn(dir); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := walkCgroup(dir+"/"+e.Name(), fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// Holds reports whether pid is in c or in a cgroup below it.
func (c *Cgroup) Holds(pid int) bool {
	p, err := Of(pid)
	return err == nil && (p == c.path || strings.HasPrefix(p, c.path+"/"))
}

// Populated reports whether any live process is in c or below it
// ("populated" in cgroup.events). A cgroup that is gone is not populated.
func (c *Cgroup) Populated() (bool, error) {
	v, err := c.event("populated")
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return v == "1", err
}

// event reads one key of cgroup.events. A cgroup removed meanwhile
// answers ENOENT, or ENODEV when it went between the open and the read:
// both are fs.ErrNotExist.
func (c *Cgroup) event(key string) (string, error) {
	var buf [256]byte
	data, err := proc.ReadFile(c.dir+"/cgroup.events", buf[:])
	if errors.Is(err, unix.ENODEV) {
		return "", fmt.Errorf("cgroup: %s: %w", c.path, fs.ErrNotExist)
	}
	if err != nil {
		return "", err
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if k, v, ok := bytes.Cut(line, []byte(" ")); ok && string(k) == key {
			return string(v), nil
		}
	}
	return "", fmt.Errorf("cgroup: %s/cgroup.events has no %q", c.path, key)
}

// WaitEmpty blocks until no live process is left in c or below it
// ("populated 0"), or ctx ends. It sleeps on an inotify watch of
// cgroup.events, which the kernel modifies when the state flips
// (cgroups(7), cgroup v2 "cgroup.events"). A cgroup that is gone is empty.
//
// One case gets no event: a cgroup emptied and at once removed by someone
// else (systemd collecting an empty scope). kernfs sends its notification
// from deferred work, which drops it for a node already removed, and a
// removed cgroup's files send nothing more. So, only while waiting, the
// state is also read again after a backoff (50 ms doubling to 1 s); at
// rest nothing waits here.
func (c *Cgroup) WaitEmpty(ctx context.Context) error {
	err := c.waitEvent(ctx, "populated", "0")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// waitEvent waits until key in cgroup.events reads want.
//
// Closing an inotify instance waits for an SRCU grace period
// (fsnotify_destroy_group: often 10-20 ms), so none is made when the value
// is already there, and the one made is closed off the caller's path.
func (c *Cgroup) waitEvent(ctx context.Context, key, want string) error {
	if v, err := c.event(key); err != nil || v == want {
		return err
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("cgroup: inotify: %w", err)
	}
	// Non-blocking, so os.File reads go through the runtime poller and a
	// read deadline can end the wait.
	f := os.NewFile(uintptr(fd), "inotify")
	defer func() { go f.Close() }() // ends when the kernel's grace period does
	if _, err := unix.InotifyAddWatch(fd, c.dir+"/cgroup.events", unix.IN_MODIFY); err != nil {
		if err == unix.ENOENT {
			return fmt.Errorf("cgroup: watch %s: %w", c.path, fs.ErrNotExist)
		}
		return fmt.Errorf("cgroup: watch %s: %w", c.path, err)
	}
	var buf [4096]byte
	for recheck := eventRecheck; ; recheck = min(2*recheck, maxEventRecheck) {
		// Read after the watch is armed: a flip in between is not lost.
		v, err := c.event(key)
		if err != nil {
			return err
		}
		if v == want {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("cgroup: %s: %s never became %s: %w", c.path, key, want, ctx.Err())
		}
		_ = f.SetReadDeadline(time.Now().Add(recheck)) // see WaitEmpty: the one lost event
		stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Now()) })
		_, err = f.Read(buf[:])
		stop()
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("cgroup: watch %s: %w", c.path, err)
		}
	}
}

// cgroupFreezeWait bounds the wait for cgroup.freeze to take effect.
const cgroupFreezeWait = time.Second

// The backoff of waitEvent's second look, for an event the kernel dropped.
const (
	eventRecheck    = 50 * time.Millisecond
	maxEventRecheck = time.Second
)

// Signal sends sig to every process in c and below it, each through a
// pidfd checked to be in c after it was opened (see signalMember).
// Processes that exit meanwhile are skipped.
func (c *Cgroup) Signal(sig syscall.Signal) error {
	pids, err := c.Members()
	var errs []error
	for _, pid := range pids {
		if err := c.signalMember(pid, sig); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(append([]error{err}, errs...)...)
}

// signalMember signals pid if it is in c. The pidfd is opened before the
// membership check, so the signal reaches the process that was checked:
// if the PID had been reused before the open, the stranger it names now
// was born outside c (members are born inside, and only a write to
// cgroup.procs moves a process), so the check fails and nothing is sent.
func (c *Cgroup) signalMember(pid int, sig syscall.Signal) error {
	fd, err := unix.PidfdOpen(pid, 0)
	switch {
	case err == unix.ESRCH:
		return nil
	case err == unix.ENOSYS: // Linux < 5.3: check, then kill; the window is one syscall
		if c.Holds(pid) {
			if err := unix.Kill(pid, sig); err != nil && err != unix.ESRCH {
				return fmt.Errorf("cgroup: signal %v to %d in %s: %w", sig, pid, c.path, err)
			}
		}
		return nil
	case err != nil:
		return fmt.Errorf("cgroup: pidfd_open %d: %w", pid, err)
	}
	defer unix.Close(fd)
	if !c.Holds(pid) {
		return nil
	}
	if err := unix.PidfdSendSignal(fd, sig, nil, 0); err != nil && err != unix.ESRCH {
		return fmt.Errorf("cgroup: signal %v to %d in %s: %w", sig, pid, c.path, err)
	}
	return nil
}

// Kill SIGKILLs every process in c and below it at once: a write to
// cgroup.kill (Linux 5.14), which also catches a process forked while the
// kill runs. Older kernels get KillExcept's freeze and per-process kill.
// It returns without waiting: WaitEmpty tells when they are gone.
func (c *Cgroup) Kill() error {
	err := c.write("cgroup.kill", "1")
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if _, serr := os.Stat(c.dir); errors.Is(serr, fs.ErrNotExist) {
		return nil // the cgroup itself is gone: nothing to kill
	}
	_, err = c.KillExcept(nil)
	return err
}

// KillExcept freezes c (no member can fork or exit meanwhile), lists its
// members, SIGKILLs those spare (nil: none) does not keep, and thaws it.
// With nothing spared it uses cgroup.kill where the kernel has it. It
// returns the members it spared. Without cgroup.freeze (Linux < 5.2) the
// kill is repeated a few times to catch children forked meanwhile.
func (c *Cgroup) KillExcept(spare func(pid int) bool) ([]int, error) {
	asked, err := c.freeze()
	if asked { // thawed again even if freezing did not complete in time
		defer func() { _ = c.write("cgroup.freeze", "0") }()
	}
	frozen := err == nil
	rounds := 1
	if !frozen {
		rounds = 5
	}
	var spared []int
	for round := 0; round < rounds; round++ {
		pids, err := c.Members()
		if err != nil {
			return spared, err
		}
		var doomed []int
		spared = spared[:0]
		for _, pid := range pids {
			if spare != nil && spare(pid) {
				spared = append(spared, pid)
			} else {
				doomed = append(doomed, pid)
			}
		}
		if len(doomed) == 0 {
			return spared, nil
		}
		if len(spared) == 0 && c.write("cgroup.kill", "1") == nil {
			return nil, nil
		}
		var errs []error
		for _, pid := range doomed {
			errs = append(errs, c.signalMember(pid, unix.SIGKILL))
		}
		if err := errors.Join(errs...); err != nil {
			return spared, err
		}
	}
	return spared, nil
}

// freeze writes cgroup.freeze (asked) and waits until the kernel reports
// "frozen 1" (err nil). Freezing is asynchronous: it can be asked for and
// not yet be done.
func (c *Cgroup) freeze() (asked bool, err error) {
	if err := c.write("cgroup.freeze", "1"); err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), cgroupFreezeWait)
	defer cancel()
	return true, c.waitEvent(ctx, "frozen", "1")
}

// Join moves pid (with all its threads) into c.
func (c *Cgroup) Join(pid int) error {
	return c.write("cgroup.procs", strconv.Itoa(pid))
}

// SpawnAttr makes attr start the child directly inside c (clone3 with
// CLONE_INTO_CGROUP, Linux 5.7): it runs its first instruction there, with
// no moment outside. Call the returned function once the child started.
func (c *Cgroup) SpawnAttr(attr *syscall.SysProcAttr) (release func(), err error) {
	fd, err := unix.Open(c.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("cgroup: open cgroup %s: %w", c.path, err)
	}
	attr.UseCgroupFD, attr.CgroupFD = true, fd
	return func() { unix.Close(fd) }, nil
}

// Remove deletes c and every cgroup below it, deepest first. Only empty
// cgroups can go (rmdir fails with EBUSY otherwise); one already gone is
// not an error.
func (c *Cgroup) Remove() error { return removeCgroupDir(c.dir) }

func removeCgroupDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cgroup: remove cgroup %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeCgroupDir(dir + "/" + e.Name()); err != nil {
				return err
			}
		}
	}
	if err := unix.Rmdir(dir); err != nil && err != unix.ENOENT {
		return fmt.Errorf("cgroup: remove cgroup %s: %w", dir, err)
	}
	return nil
}

// write writes one value to one of c's control files.
func (c *Cgroup) write(file, value string) error {
	fd, err := unix.Open(c.dir+"/"+file, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("cgroup: %s/%s: %w", c.path, file, &fs.PathError{Op: "open", Path: c.dir + "/" + file, Err: err})
	}
	defer unix.Close(fd)
	if _, err := unix.Write(fd, []byte(value)); err != nil {
		return fmt.Errorf("cgroup: write %q to %s/%s: %w", value, c.path, file, err)
	}
	return nil
}
