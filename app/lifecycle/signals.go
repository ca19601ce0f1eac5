package lifecycle

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// stopSignals stop a run, with full teardown. They are caught, not
// ignored: an ignored signal would stay ignored in every backend we start.
var stopSignals = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}

// Signals is a run's one handler of the signals that stop it. Its context
// is cancelled at the first of them, or when the run ends.
type Signals struct {
	ch     chan os.Signal
	ctx    context.Context
	cancel context.CancelFunc
	// watch waits for the first signal; it ends then, or in release.
	watch sync.WaitGroup
}

// catchSignals starts a run's handler. It also catches SIGPIPE for good:
// without a reader on stdout (terminal closed, app started from a menu) a
// write must fail, not kill the launcher before it tears down.
func catchSignals() *Signals {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	s := &Signals{ch: make(chan os.Signal, 1)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	signal.Notify(s.ch, stopSignals...)
	s.watch.Go(func() {
		select {
		case <-s.ch:
			s.cancel()
		case <-s.ctx.Done():
		}
	})
	return s
}

// Context is cancelled at the first stop signal, or when the run ends.
func (s *Signals) Context() context.Context { return s.ctx }

// Reclaim takes SIGTERM and SIGINT back from a toolkit that installed its
// own handler: Wails routes them through the window's OnBeforeClose, where
// hiding to the tray would swallow them. Ours always stops the run.
func (s *Signals) Reclaim() {
	signal.Reset(syscall.SIGTERM, syscall.SIGINT)
	signal.Notify(s.ch, stopSignals...)
}

// release stops the handler and waits for its goroutine.
func (s *Signals) release() {
	signal.Stop(s.ch)
	s.cancel()
	s.watch.Wait()
}
