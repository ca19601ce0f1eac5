package cgroup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
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

// The backoff of waitEvent's second look, for an event the kernel dropped.
const (
	eventRecheck    = 50 * time.Millisecond
	maxEventRecheck = time.Second
)
