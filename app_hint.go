package main

import (
	"log/slog"
	"os"
	"path/filepath"
)

// stillRunningHinted marks, in the state dir, that the user was told once
// that closing the window keeps the app running.
const stillRunningHinted = "closed-to-tray-hinted"

// hintStillRunning tells the user, the first time the window hides to the
// tray, that the app and its backends still run: a window that vanishes
// looks like a quit. A desktop notification, once per install (the mark is
// written only once one was shown, so a session without a notification
// server tries again next time). It runs in the background: beforeClose is
// on the UI thread, and the notification server may be slow.
func (w *shell) hintStillRunning() {
	mark := filepath.Join(w.stateDir, stillRunningHinted)
	if w.notify == nil || !w.hinting.CompareAndSwap(false, true) {
		return
	}
	if _, err := os.Stat(mark); err == nil {
		return // hinting stays set: nothing more to do in this run
	}
	w.background.Go(func() {
		err := w.notify("Hermes Desktop is still running",
			"Its backends keep running. Open the window again from the tray icon; Quit in the tray menu stops everything.")
		if err != nil {
			slog.Info("no notification that the app still runs", "err", err)
			w.hinting.Store(false)
			return
		}
		if err := os.WriteFile(mark, nil, 0o600); err != nil {
			slog.Warn("remember the still-running notification", "err", err)
		}
	})
}
