//go:build desktop && (linux || windows)

package main

import (
	_ "embed"
	"fmt"

	"fyne.io/systray"

	"hermes-desktop/backend"
)

//go:embed build/trayicon.png
var trayIconPNG []byte

// tray is the system tray icon and menu. Its click loop is the one goroutine
// it owns; stop ends it and removes the icon.
type tray struct {
	end  func()
	quit chan struct{}
	done chan struct{}
}

// startTray shows the tray icon when the platform can (on Linux: a session
// bus to talk StatusNotifierItem on). A tray host that appears later is
// picked up by systray itself.
func startTray(app *App) *tray {
	if !canStartTray() {
		return &tray{}
	}
	t := &tray{quit: make(chan struct{}), done: make(chan struct{})}
	start, end := systray.RunWithExternalLoop(func() { t.build(app) }, func() {})
	t.end = end
	start()
	return t
}

func (t *tray) build(app *App) {
	systray.SetIcon(trayIcon())
	systray.SetTitle("Hermes Desktop")
	systray.SetTooltip("Hermes Desktop")
	status := systray.AddMenuItem("Starting…", "State of the backend")
	status.Disable()
	systray.AddSeparator()
	open := systray.AddMenuItem("Open Hermes", "Show the Hermes Desktop window")
	restart := systray.AddMenuItem("Restart backend", "Restart the backend")
	systray.AddSeparator()
	quit := systray.AddMenuItem("Quit", "Stop every backend and quit")
	app.onStatus = func(st backend.Status) { status.SetTitle(trayStatusLine(st)) }
	go func() {
		defer close(t.done)
		for {
			// systray drops a click unless someone is receiving: this loop
			// always is, until stop.
			select {
			case <-t.quit:
				return
			case <-open.ClickedCh:
				app.showWindow()
			case <-restart.ClickedCh:
				go func() { _ = app.Restart("") }() // may take the grace period; keep the menu responsive
			case <-quit.ClickedCh:
				_ = app.Quit()
			}
		}
	}()
}

// stop ends the click loop and removes the icon.
func (t *tray) stop() {
	if t.end == nil {
		return
	}
	close(t.quit)
	t.end()
	<-t.done
}

// trayStatusLine is the tray menu's first (disabled) line: the state of the
// first backend in a few words.
func trayStatusLine(st backend.Status) string {
	if len(st.Backends) == 0 {
		return "No backend"
	}
	b := st.Backends[0]
	switch b.State {
	case backend.StateReady:
		return fmt.Sprintf("Backend ready on :%d", b.Port)
	case backend.StateStarting:
		return "Backend starting…"
	case backend.StateRestarting:
		return fmt.Sprintf("Backend restarting (%d so far)…", b.Restarts)
	case backend.StateFailed:
		return "Backend failed: open Hermes for details"
	}
	return "Backend stopped"
}
