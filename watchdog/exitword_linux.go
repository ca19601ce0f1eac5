package watchdog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The owner's exit word: the earliest notice of a launcher's death that
// Linux gives another process. A killed process's files, the lifeline
// among them, are closed only after the kernel has freed its memory (2.4
// ms for the 12 MB headless launcher here, more for the window's:
// bench/exitnotice), but each dying thread releases its robust futexes
// (set_robust_list(2)) before that. The launcher keeps one thread that
// holds a futex word in a sealed memfd for as long as it lives; the shim
// maps the memfd and waits on the word; the kernel marks the word
// FUTEX_OWNER_DIED and wakes a waiter as that thread's exit begins. The
// lifeline stays the rule, this is only sooner: a shim without the word,
// or one whose word cannot be read, watches as before.

const (
	exitWordSize = 4096
	// The page, as the launcher's thread and the kernel see it: the
	// robust list head (next, futex_offset, list_op_pending: three C
	// longs), then one entry (next) whose futex word lies exitWordOffset
	// past it.
	exitWordHead   = 0
	exitWordEntry  = 64
	exitWordOffset = 8
	longSize       = int(unsafe.Sizeof(uintptr(0)))
	exitWordSeals  = unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_SEAL

	futexWait      = 0 // FUTEX_WAIT, shared: the word is in a shared mapping
	futexWake      = 1 // FUTEX_WAKE
	futexWaiters   = 0x80000000
	futexOwnerDied = 0x40000000
	futexTIDMask   = 0x3fffffff
)

var launcherExitWord struct {
	once sync.Once
	file *os.File
	err  error
}

// ownerExitWord is this process's exit word, made once: the memfd to pass
// to every shim. Its holding thread lives as long as the process.
func ownerExitWord() (*os.File, error) {
	w := &launcherExitWord
	w.once.Do(func() { w.file, w.err = holdExitWord() })
	return w.file, w.err
}

func holdExitWord() (*os.File, error) {
	fd, err := unix.MemfdCreate("hermes-desktop-owner", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("watchdog: exit word: memfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "owner-exit-word")
	fail := func(what string, err error) (*os.File, error) {
		f.Close()
		return nil, fmt.Errorf("watchdog: exit word: %s: %w", what, err)
	}
	if err := unix.Ftruncate(fd, exitWordSize); err != nil {
		return fail("size", err)
	}
	// A shim maps the page: sealed, nobody can shrink it under the mapping
	// (which would fault the shim).
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, exitWordSeals); err != nil {
		return fail("seal", err)
	}
	mem, err := unix.Mmap(fd, 0, exitWordSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fail("map", err)
	}
	held := make(chan error, 1)
	go holdOnThisThread(mem, held) // never returns: the thread must live as long as we do
	if err := <-held; err != nil {
		return fail("robust list", err)
	}
	return f, nil
}

// holdOnThisThread takes an OS thread for good, writes its thread ID into
// the word and registers the word as the thread's robust list, then parks
// forever. The goroutine never ends, so the locked thread never exits
// while the process lives; mem is never unmapped.
func holdOnThisThread(mem []byte, held chan<- error) {
	runtime.LockOSThread()
	base := uintptr(unsafe.Pointer(&mem[0]))
	*(*uintptr)(unsafe.Pointer(&mem[exitWordEntry])) = base + exitWordHead // the entry's next: back to the head
	*(*int)(unsafe.Pointer(&mem[exitWordHead+longSize])) = exitWordOffset  // Go's int is a C long on Linux
	*(*uintptr)(unsafe.Pointer(&mem[exitWordHead+2*longSize])) = 0         // no operation pending
	atomic.StoreUint32(exitWordAt(mem), uint32(unix.Gettid()))
	*(*uintptr)(unsafe.Pointer(&mem[exitWordHead])) = base + exitWordEntry
	if _, _, errno := unix.Syscall(unix.SYS_SET_ROBUST_LIST, base+exitWordHead, uintptr(3*longSize), 0); errno != 0 {
		held <- errno
		runtime.UnlockOSThread()
		return
	}
	held <- nil
	select {}
}

func exitWordAt(mem []byte) *uint32 {
	return (*uint32)(unsafe.Pointer(&mem[exitWordEntry+exitWordOffset]))
}

// exitWord is the shim's mapping of its owner's exit word.
type exitWord struct {
	mem []byte
}

// openExitWord maps the exit word the launcher passed as fd and closes fd
// (the backend must not inherit it). It refuses anything but a sealed
// memfd page whose word is held by a thread of owner.
func openExitWord(fd int, owner int) (*exitWord, error) {
	defer unix.Close(fd)
	seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	if err != nil || seals&unix.F_SEAL_SHRINK == 0 {
		return nil, fmt.Errorf("watchdog: exit word fd %d is not a sealed memfd", fd)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Size < exitWordSize {
		return nil, fmt.Errorf("watchdog: exit word fd %d is not a page", fd)
	}
	mem, err := unix.Mmap(fd, 0, exitWordSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("watchdog: exit word: map: %w", err)
	}
	w := &exitWord{mem: mem}
	v := atomic.LoadUint32(exitWordAt(mem))
	tid := int(v & futexTIDMask)
	if v&futexOwnerDied == 0 && tid > 0 {
		if _, err := os.Stat("/proc/" + strconv.Itoa(owner) + "/task/" + strconv.Itoa(tid)); err == nil {
			return w, nil
		}
	}
	w.close()
	if v&futexOwnerDied != 0 {
		return nil, errOwnerExited
	}
	return nil, fmt.Errorf("watchdog: exit word is held by %d, not by a thread of %d", tid, owner)
}

var errOwnerExited = errors.New("watchdog: the owner's exit word says it has exited")

// wait blocks until the owner's holding thread has begun to exit (true) or
// ctx ends (false).
func (w *exitWord) wait(ctx context.Context) bool {
	word := exitWordAt(w.mem)
	var cancelled atomic.Bool
	returned, woken := make(chan struct{}), make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(woken)
		cancelled.Store(true)
		// The word is not ours to change, so a wait cannot be ended by
		// changing it: wake every waiter (the other shims look again and
		// wait on) until ours has seen the flag, as one that was about to
		// wait when the first wake went out needs another.
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			futex(word, futexWake, 1<<30)
			select {
			case <-returned:
				return
			case <-t.C:
			}
		}
	})
	defer func() {
		close(returned)
		if !stop() {
			<-woken // no wake touches the word once the caller may unmap it
		}
	}()
	for {
		v := atomic.LoadUint32(word)
		if v&futexOwnerDied != 0 {
			// The kernel woke one waiter; the other shims of this owner
			// wait on the same word.
			futex(word, futexWake, 1<<30)
			return true
		}
		if cancelled.Load() {
			return false
		}
		if v&futexWaiters == 0 {
			// Without the bit the kernel marks the word but wakes nobody.
			atomic.CompareAndSwapUint32(word, v, v|futexWaiters)
			continue
		}
		futex(word, futexWait, v) // returns at once when the word is no longer v
	}
}

// marked reports, without waiting, whether the owner's holding thread has
// begun to exit; false for no word.
func (w *exitWord) marked() bool {
	return w != nil && w.mem != nil && atomic.LoadUint32(exitWordAt(w.mem))&futexOwnerDied != 0
}

func (w *exitWord) close() {
	if w != nil && w.mem != nil {
		_ = unix.Munmap(w.mem)
		w.mem = nil
	}
}

func futex(word *uint32, op int, val uint32) {
	_, _, _ = unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(word)), uintptr(op), uintptr(val), 0, 0, 0)
}
