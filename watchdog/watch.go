// Package watchdog notices the death of a parent process, fast and without
// polling where the OS offers a blocking primitive, and (as the `watchdog`
// shim) tears a backend's whole process tree down when that happens.
//
// As a library, Watch is what any Go backend calls to follow the
// HERMES_PARENT_PID contract: it returns when the parent is gone, by
// whichever of these fires first: EOF on a lifeline pipe, the OS's exit
// notification for the parent (pidfd on Linux, kqueue NOTE_EXIT on macOS, a
// process handle on Windows), or getppid() no longer naming the parent
// (checked once a second, and only where the exit notification could not
// be armed: at rest a watch wakes nobody).
//
// The shim starts for every backend, so it carries the OS primitives, the
// Hermes contract and the nonces, nothing of the engine: the launcher
// imports the shim's protocol (protocol.go) from here, never the other way
// round.
package watchdog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/platform/proc"
)

// Parent names the process whose death is watched for.
type Parent struct {
	PID int
	// Start is the parent's start marker; "" means unknown, and then only
	// the PID is checked (weaker: a reused PID looks alive).
	Start string
	// Nonce is the launcher's nonce for this child, carried for the
	// contract; the watcher itself does not need it.
	Nonce string
}

func (p Parent) identity() proc.Identity { return proc.Identity{PID: p.PID, Start: p.Start} }

// ParentFromEnv reads the parent named by the HERMES_PARENT_* variables.
// ok is false when HERMES_PARENT_PID is unset (a standalone run). A marker
// without a nonce, or the reverse, is an error: the contract sets both or
// neither.
func ParentFromEnv() (p Parent, ok bool, err error) {
	raw := os.Getenv(hermes.EnvParentPID)
	if raw == "" {
		return Parent{}, false, nil
	}
	pid, err := strconv.Atoi(raw)
	if err != nil || pid <= 1 {
		return Parent{}, false, fmt.Errorf("watchdog: %s=%q is not a parent PID", hermes.EnvParentPID, raw)
	}
	p = Parent{PID: pid, Start: os.Getenv(hermes.EnvParentMarker), Nonce: os.Getenv(hermes.EnvParentNonce)}
	if (p.Start == "") != (p.Nonce == "") {
		return Parent{}, false, fmt.Errorf("watchdog: %s and %s must be set together", hermes.EnvParentMarker, hermes.EnvParentNonce)
	}
	if p.Start != "" {
		if _, _, err := proc.ParseMarker(p.Start); err != nil {
			return Parent{}, false, fmt.Errorf("watchdog: %s: %w", hermes.EnvParentMarker, err)
		}
	}
	return p, true, nil
}

// Reason says which mechanism noticed the parent's death.
type Reason string

// Reasons returned by Watch.
const (
	ReasonLifeline   Reason = "lifeline closed"
	ReasonExitNotify Reason = "exit notification"
	ReasonReparented Reason = "reparented"
	ReasonGone       Reason = "parent already gone"
	// ReasonOwnerExiting: the owner's exit word (the shim's, on Linux) says
	// its exit has begun.
	ReasonOwnerExiting Reason = "owner exiting"
)

// Options configure Watch. The zero value of each field is a sensible
// default.
type Options struct {
	Parent Parent
	// Lifeline, if set, is the read end of a pipe whose write end only the
	// parent holds: EOF means the parent is gone. It must be pollable (see
	// OpenLifeline) so Watch can stop reading when ctx ends.
	Lifeline *os.File
	// OnMessage, if set, receives each line the parent writes on the
	// lifeline (without the newline). It runs on the reading goroutine.
	OnMessage func(line string)
	// PollInterval is the getppid() check period; 0 means one second and a
	// negative value disables the check. The check only runs when the
	// parent is our actual parent at the start, and only when the OS exit
	// notification could not be armed (no pidfd before Linux 5.3, or
	// NoExitNotify): an armed notification already sees the exit, and the
	// poll would only wake the process once a second for nothing.
	PollInterval time.Duration
	// NoExitNotify disables the OS exit notification (for tests that
	// measure the other mechanisms).
	NoExitNotify bool
	// exitWord, when set, is the owner's exit word (the shim's).
	exitWord *exitWord
}

// Watch blocks until the parent dies, returning which mechanism saw it
// first, or until ctx ends, returning ctx.Err(). Every goroutine it starts
// has ended when it returns.
func Watch(ctx context.Context, opts Options) (Reason, error) {
	if opts.Parent.PID <= 1 {
		return "", fmt.Errorf("watchdog: parent pid %d cannot be watched", opts.Parent.PID)
	}
	if gone(opts.Parent) {
		return ReasonGone, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	found := make(chan Reason, 4)
	var wg sync.WaitGroup
	start := func(fn func(context.Context) (Reason, bool)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r, ok := fn(ctx); ok {
				found <- r
			}
		}()
	}
	if opts.Lifeline != nil {
		start(func(ctx context.Context) (Reason, bool) { return readLifeline(ctx, opts.Lifeline, opts.OnMessage) })
	}
	if opts.exitWord != nil {
		start(func(ctx context.Context) (Reason, bool) {
			if opts.exitWord.wait(ctx) {
				return ReasonOwnerExiting, true
			}
			return "", false
		})
	}
	armed := false
	if !opts.NoExitNotify {
		var exit exitWatch
		if exit, armed = armExit(opts.Parent); armed {
			defer exit.close() // after wg.Wait below: the waiter is done with it
			start(func(ctx context.Context) (Reason, bool) {
				if exit.wait(ctx) {
					return ReasonExitNotify, true
				}
				return "", false
			})
		}
	}
	if !armed && opts.PollInterval >= 0 && os.Getppid() == opts.Parent.PID {
		start(func(ctx context.Context) (Reason, bool) { return pollParent(ctx, opts.Parent.PID, opts.PollInterval) })
	}
	reason, err := firstReason(ctx, found, opts.exitWord)
	cancel()
	wg.Wait()
	return reason, err
}

// firstReason waits for the first watcher's word, or ctx's end. The kernel
// marks the exit word as the owner's exit begins, before it frees the
// owner's memory, closes its files (the lifeline) or reports its exit:
// when the word is marked too, it was first, even if its waiter was
// scheduled after another watcher's.
func firstReason(ctx context.Context, found <-chan Reason, word *exitWord) (Reason, error) {
	select {
	case r := <-found:
		if r != ReasonOwnerExiting && word.marked() {
			return ReasonOwnerExiting, nil
		}
		return r, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// gone reports whether the parent is already dead or its PID reused.
func gone(p Parent) bool {
	if p.Start == "" {
		_, err := proc.Lookup(p.PID)
		return errors.Is(err, proc.ErrNotFound)
	}
	alive, err := proc.Alive(p.identity())
	return err == nil && !alive
}

func pollParent(ctx context.Context, pid int, every time.Duration) (Reason, bool) {
	if every == 0 {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return "", false
		case <-t.C:
			if os.Getppid() != pid {
				return ReasonReparented, true
			}
		}
	}
}
