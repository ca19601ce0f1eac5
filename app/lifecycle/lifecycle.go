// Package lifecycle is the program's one life, the same for the window and
// the headless run: open the launcher (or, when an instance already runs on
// the state dir, ask it to show itself and end), start the backends, wait
// for a stop (a signal, a stop request, a handoff to a successor, the
// window's Quit), then either watch an update's health window or tear every
// backend down. What only the window needs (the toolkit's main loop on the
// main thread, the tray, a signal handler to take back from Wails) comes in
// through Window, not a second copy of the flow.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"hermes-desktop/backend"
	"hermes-desktop/backend/control/protocol"
)

// Window is what a run shows while its launcher serves: the desktop
// build's window and tray. A headless run has none.
type Window interface {
	// Run shows the window until it closes (Quit in the tray or the menu,
	// or Close) on the calling goroutine, the main one: the toolkit's main
	// loop must own it. sig is the run's signal handler, for a toolkit
	// that installs its own to be overruled (Signals.Reclaim). An error
	// means the window could not run at all: the launcher then runs
	// headless until it is stopped.
	Run(sig *Signals) error
	// Close asks Run to return because the run is stopping (a signal, a
	// stop request, a handoff); from any goroutine, any number of times,
	// before or during Run.
	Close()
	// End, called once Run returned, stops what the window started beside
	// it (the tray, restarts in the background) and waits for it.
	End()
}

// Options say how a run shows itself; the zero value is a headless run.
type Options struct {
	// Window, if not nil, makes the window for the opened launcher, before
	// its backends start; nil runs headless.
	Window func(l *backend.Launcher) Window
	// Claimed, if not nil, is called once this instance holds the state
	// dir, before anything starts, with the executable the shims and the
	// built-in backend will run from (backend.Launcher.Core).
	Claimed func(core string)
	// Started, if not nil, is called once the backends are starting (the
	// build-time faults of the update tests).
	Started func()
}

// Run is the program's life on cfg's state dir; it returns once every
// backend is torn down, or handed over to a successor (after an update,
// once its health window is over). Lines for a person go to stdout,
// warnings to stderr. A nil error means the exit status 0: everything we
// owned is gone or handed over, or another instance already runs there
// (it was asked to show itself).
func Run(cfg backend.Config, stdout, stderr io.Writer, o Options) error {
	l, err := backend.Open(cfg)
	if errors.Is(err, backend.ErrAlreadyRunning) {
		focusRunning(cfg.StateDir, stdout, stderr)
		return nil
	}
	if err != nil {
		return err
	}
	sig := catchSignals()
	defer sig.release()
	start := func() {
		l.Prepare()
		if o.Claimed != nil {
			o.Claimed(l.Core())
		}
		l.Start()
		if o.Started != nil {
			o.Started()
		}
		fmt.Fprintf(stdout, "hermes-desktop running (pid %d, state dir %s); stop with Ctrl-C or 'hermes-desktop stop'\n", os.Getpid(), cfg.StateDir)
	}
	var w Window
	if o.Window != nil {
		w = o.Window(l)
	}
	if w == nil {
		start()
		serve(l, w, sig, stderr)
	} else {
		// The window opens while the core is found and the backends start
		// (on a fresh state dir, unpacking the core alone takes 100 ms):
		// the toolkit needs the main thread, the rest does not. Whatever
		// ends the run waits for the start first.
		var starting sync.WaitGroup
		starting.Go(start)
		serve(l, w, sig, stderr)
		starting.Wait()
	}
	select {
	case <-l.HandedOff():
		fmt.Fprintln(stdout, "handed over to the new instance; exiting without teardown")
		l.Updates().WatchUpdate(sig.Context()) // after an update: its health window, then exit
		return nil
	default:
	}
	fmt.Fprintln(stdout, "stopping: tearing down backends")
	if err := l.Shutdown(); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	fmt.Fprintln(stdout, "stopped")
	return nil
}

// serve returns once the run should stop: the window closed, or, without
// a window (or with one that could not run), a signal, a stop request or a
// handoff.
func serve(l *backend.Launcher, w Window, sig *Signals, stderr io.Writer) {
	if w == nil {
		waitForStop(l, sig, nil)
		return
	}
	// The closer closes the window when the run stops from elsewhere; it
	// ends then, or once the window is gone, whichever comes first.
	gone := make(chan struct{})
	var closer sync.WaitGroup
	closer.Go(func() {
		if waitForStop(l, sig, gone) {
			w.Close()
		}
	})
	err := w.Run(sig)
	close(gone)
	closer.Wait()
	if err != nil {
		fmt.Fprintf(stderr, "hermes-desktop: the window could not run (%v); running headless until stopped\n", err)
		waitForStop(l, sig, nil)
	}
	w.End()
}

// waitForStop blocks until a signal, a stop request or a handoff, and
// reports true; or until cancel closes, and reports false.
func waitForStop(l *backend.Launcher, sig *Signals, cancel <-chan struct{}) bool {
	select {
	case <-sig.Context().Done():
	case <-l.StopRequested():
	case <-l.HandedOff():
	case <-cancel:
		return false
	}
	return true
}

// focusRunning asks the instance that holds stateDir to show itself: a
// second launch never starts backends of its own.
func focusRunning(stateDir string, stdout, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := protocol.OpFocus.Call(ctx, stateDir, "", protocol.None{}); err != nil {
		fmt.Fprintf(stderr, "hermes-desktop: another instance holds %s but did not answer: %v\n", stateDir, err)
	}
	fmt.Fprintf(stdout, "hermes-desktop is already running (state dir %s); not starting another\n", stateDir)
}
