package lockfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// ErrHeld means another live process holds the lock.
var ErrHeld = errors.New("lockfile: lock is held by another process")

// File names inside the state directory.
const (
	InstanceLockName = "launcher.lock"
	ownersDirName    = "owners"
	ownerLockName    = "owner.lock"
)

// Lock is an exclusive advisory lock (flock on Unix, LockFileEx on Windows)
// on a file that is never deleted. The kernel releases it when the holder
// dies, however it dies, so a free lock proves its last holder is gone.
type Lock struct {
	f *flock.Flock
}

// Acquire takes the lock at path without waiting. It returns ErrHeld when a
// live process holds it, and ErrUnsafePath when the file is a symlink or not
// ours.
func Acquire(path string) (*Lock, error) {
	f, err := openLock(path)
	if err != nil {
		return nil, err
	}
	ok, err := f.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lockfile: lock %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrHeld, path)
	}
	return &Lock{f: f}, nil
}

// AcquireWait retries Acquire until it succeeds or ctx ends. Used when a
// successor waits for its predecessor to let go (update handoff).
func AcquireWait(ctx context.Context, path string) (*Lock, error) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		l, err := Acquire(path)
		if err == nil || !errors.Is(err, ErrHeld) {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lockfile: wait for %s: %w", path, ctx.Err())
		case <-t.C:
		}
	}
}

func openLock(path string) (*flock.Flock, error) {
	if fi, err := os.Lstat(path); err == nil {
		if err := checkFile(path, fi); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("lockfile: %w", err)
	}
	// O_NOFOLLOW closes the window between the check above and the open.
	return flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDONLY|openNoFollow), flock.SetPermissions(0o600)), nil
}

// Release drops the lock and closes the file. The file stays on disk.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	if err := l.f.Unlock(); err != nil {
		return fmt.Errorf("lockfile: unlock %s: %w", l.f.Path(), err)
	}
	return nil
}

// Held reports whether a live process holds the lock at path. A missing
// file is not held; one that cannot be reached (a file where its directory
// should be) is an error, not "free". The probe takes the lock for an
// instant when it is free, which is harmless: a free lock has no holder to
// disturb.
func Held(path string) (bool, error) {
	if _, err := os.Lstat(path); absent(path, err) {
		return false, nil
	}
	l, err := Acquire(path)
	if errors.Is(err, ErrHeld) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return false, l.Release()
}

// AcquireInstance takes the single-instance lock of stateDir.
func AcquireInstance(stateDir string) (*Lock, error) {
	return Acquire(filepath.Join(stateDir, InstanceLockName))
}

// OwnerLockPath is where the owner with the given nonce keeps its lock.
func OwnerLockPath(stateDir, nonce string) string {
	return filepath.Join(stateDir, ownersDirName, nonce, ownerLockName)
}

// AcquireOwner creates owners/<nonce>/ and takes its owner lock, held for
// the whole life of one launcher instance.
func AcquireOwner(stateDir, nonce string) (*Lock, error) {
	if err := ValidNonce(nonce); err != nil {
		return nil, err
	}
	owners, err := ensureSubdir(stateDir, ownersDirName)
	if err != nil {
		return nil, err
	}
	if _, err := ensureSubdir(owners, nonce); err != nil {
		return nil, err
	}
	return Acquire(OwnerLockPath(stateDir, nonce))
}

// OwnerLockHeld reports whether the launcher instance with nonce still holds
// its owner lock.
func OwnerLockHeld(stateDir, nonce string) (bool, error) {
	if err := ValidNonce(nonce); err != nil {
		return false, err
	}
	return Held(OwnerLockPath(stateDir, nonce))
}

// RemoveDeadOwners deletes the owners/<nonce> directories whose lock is free
// and whose nonce is not in keep (our own, and those records still name).
// Only the single-instance holder may call it: no new owner can appear while
// it holds that lock, and a free lock proves its holder is gone, so nobody
// can hold what is deleted. It returns the nonces removed.
func RemoveDeadOwners(stateDir string, keep map[string]bool) ([]string, error) {
	dir := filepath.Join(stateDir, ownersDirName)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lockfile: list owners: %w", err)
	}
	var removed []string
	for _, e := range entries {
		nonce := e.Name()
		if keep[nonce] || ValidNonce(nonce) != nil || !e.IsDir() {
			continue // not ours to judge: leave it
		}
		held, err := OwnerLockHeld(stateDir, nonce)
		if err != nil || held {
			continue
		}
		lock := OwnerLockPath(stateDir, nonce)
		if err := os.Remove(lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := os.Remove(filepath.Dir(lock)); err == nil {
			removed = append(removed, nonce)
		}
	}
	return removed, nil
}
