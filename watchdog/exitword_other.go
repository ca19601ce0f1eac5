//go:build !linux

package watchdog

import (
	"context"
	"errors"
	"os"
)

// No exit word outside Linux (robust futexes in shared memory are Linux's):
// the lifeline and the OS exit notification see the owner's death.

var errNoExitWord = errors.New("watchdog: no exit word on this OS")

type exitWord struct{}

func ownerExitWord() (*os.File, error) { return nil, errNoExitWord }

// openExitWord refuses: our launcher never passes one here.
func openExitWord(int, int) (*exitWord, error) { return nil, errNoExitWord }

func (*exitWord) wait(ctx context.Context) bool { <-ctx.Done(); return false }

func (*exitWord) marked() bool { return false }

func (*exitWord) close() {}
