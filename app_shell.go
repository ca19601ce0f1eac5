package main

//lint:file-ignore U1000 the shell is used by the desktop build (gui_desktop.go, tag "desktop") and its tests, not by a plain headless build for other OSes

import (
	"context"
	"sync"
	"sync/atomic"

	"hermes-desktop/backend"
	"hermes-desktop/backend/model"
)

// windowUI is what the shell needs from the window toolkit. The Wails
// adapter (gui_desktop.go) implements it; the shell never imports Wails,
// so it is tested with a fake.
type windowUI interface {
	Emit(topic string, data any)
	Show()
	Hide()
	Quit()
}

// shell is the window and the tray around the page: it pushes events to
// the window (app_pump.go), decides what the close button does, tells the
// user the app still runs (app_hint.go), and runs what the tray asks for
// in the background. None of it is bound: the page calls the App.
type shell struct {
	l        *backend.Launcher
	stateDir string

	// trayAvailable reports whether a tray can bring the window back, so
	// closing the window may hide it instead of quitting.
	trayAvailable func() bool
	// notify shows a desktop notification (desktop.Notify); nil shows none.
	notify func(summary, body string) error
	// onStatus, if set, sees every status pushed to the window (the tray's
	// status line).
	onStatus atomic.Pointer[func(model.Status)]

	ui       atomic.Pointer[windowUI]
	quitting atomic.Bool
	// hinting is set while, or once, hintStillRunning has told the user.
	hinting  atomic.Bool
	pumpStop chan struct{}
	pumpDone chan struct{}
	// visible is whether the window can be seen; shown pokes the pump when
	// it becomes visible again.
	visible  atomic.Bool
	shown    chan struct{}
	attachMu sync.Mutex // guards pumpStop and pumpDone

	// background owns the restarts the tray and the app menu ask for: they
	// may take a grace period, and the menu must stay responsive. ctx is
	// theirs and the page's calls': App.Quit cancels it, and end cancels
	// it and waits for the background.
	background sync.WaitGroup
	ctx        context.Context
	cancel     context.CancelFunc
}

func newShell(l *backend.Launcher) *shell {
	ctx, cancel := context.WithCancel(context.Background())
	w := &shell{l: l, stateDir: l.StateDir(), trayAvailable: func() bool { return false },
		ctx: ctx, cancel: cancel, shown: make(chan struct{}, 1)}
	w.visible.Store(true)
	return w
}

// restartInBackground restarts a backend ("" for all) without blocking the
// caller (a tray click).
func (w *shell) restartInBackground(name string) {
	w.background.Go(func() {
		if err := w.l.Restart(w.ctx, name); err != nil && w.ctx.Err() == nil {
			w.l.Logger().Warn("tray: restart", "backend", name, "err", err)
			w.tell("Could not restart", err.Error())
		}
	})
}

// applyUpdateInBackground applies a ready update without blocking the
// caller (a tray click). Its outcome shows in the status: the window
// closes once the new version serves, or the banner says what failed.
func (w *shell) applyUpdateInBackground() {
	w.background.Go(func() { _, _ = w.l.Updates().Apply(w.ctx) })
}

// end cancels what runs in the background and waits for it.
func (w *shell) end() {
	w.cancel()
	w.background.Wait()
}

// showWindow brings the window back, if there is one.
func (w *shell) showWindow() {
	if ui := w.ui.Load(); ui != nil {
		(*ui).Show()
		w.setVisible(true)
	}
}

// beforeClose decides what the window's close button does: hide to the tray
// when a tray can bring the window back, else quit (with full teardown).
// It returns true to keep the app running.
func (w *shell) beforeClose() bool {
	if w.quitting.Load() {
		return false
	}
	if w.trayAvailable() {
		if ui := w.ui.Load(); ui != nil {
			(*ui).Hide()
			w.setVisible(false)
			w.hintStillRunning()
			return true
		}
	}
	w.quitting.Store(true)
	return false
}

// quit closes the window, which ends the run (with full teardown); with no
// window (yet) it asks the launcher's owner to stop.
func (w *shell) quit() {
	w.quitting.Store(true)
	if ui := w.ui.Load(); ui != nil {
		(*ui).Quit()
		return
	}
	w.l.RequestStop()
}

// setOnStatus registers what sees every status (the tray's line), from any
// goroutine.
func (w *shell) setOnStatus(fn func(model.Status)) { w.onStatus.Store(&fn) }

// tell shows a desktop notification, reporting whether it could.
func (w *shell) tell(summary, body string) bool {
	return w.notify != nil && w.notify(summary, body) == nil
}

// menuActions adapts the App to what the tray and the app menu call,
// without adding methods the page could call.
type menuActions struct{ a *App }

func (m menuActions) ShowWindow()         { m.a.win.showWindow() }
func (m menuActions) Restart(name string) { m.a.win.restartInBackground(name) }
func (m menuActions) Quit() error         { return m.a.Quit() }
func (m menuActions) ApplyUpdate()        { m.a.win.applyUpdateInBackground() }

// OpenHermes opens Hermes' page, or shows the window when it cannot (no
// page ready yet, no browser opener): the launcher log and a notification
// say why, since the window may be on screen already and change nothing.
func (m menuActions) OpenHermes() {
	if _, err := m.a.l.Pages().Open(""); err != nil {
		m.a.l.Logger().Warn("tray: Open Hermes", "err", err)
		m.a.win.tell("Could not open Hermes", err.Error())
		m.a.win.showWindow()
	}
}
