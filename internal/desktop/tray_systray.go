//go:build desktop && (linux || windows)

package desktop

import (
	"sync"

	"fyne.io/systray"

	"hermes-desktop/backend"
)

// Tray is the system tray icon and menu. Its click loop is the one
// goroutine it owns; Stop ends it and removes the icon.
type Tray struct {
	end  func()
	quit chan struct{}
	done chan struct{}

	mu     sync.Mutex // guards status and line
	status *systray.MenuItem
	line   string // the latest status line, for an item built later
}

// StartTray shows the tray icon when the platform can (on Linux: a session
// bus to talk StatusNotifierItem on). A tray host that appears later is
// picked up by systray itself.
func StartTray(actions Actions, icons Icons) *Tray {
	if !canStartTray() {
		return &Tray{}
	}
	t := &Tray{quit: make(chan struct{}), done: make(chan struct{}), line: "Starting…"}
	start, end := systray.RunWithExternalLoop(func() { t.build(actions, icons) }, func() {})
	t.end = end
	start()
	return t
}

func (t *Tray) build(actions Actions, icons Icons) {
	systray.SetIcon(trayIcon(icons))
	systray.SetTitle("Hermes Desktop")
	systray.SetTooltip("Hermes Desktop")
	t.mu.Lock()
	t.status = systray.AddMenuItem(t.line, "State of the backend")
	t.status.Disable()
	t.mu.Unlock()
	systray.AddSeparator()
	open := systray.AddMenuItem("Open Hermes", "Show the Hermes Desktop window")
	restart := systray.AddMenuItem("Restart backend", "Restart the backend")
	systray.AddSeparator()
	quit := systray.AddMenuItem("Quit", "Stop every backend and quit")
	go func() {
		defer close(t.done)
		for {
			// systray drops a click unless someone is receiving: this loop
			// always is, until Stop.
			select {
			case <-t.quit:
				return
			case <-open.ClickedCh:
				actions.ShowWindow()
			case <-restart.ClickedCh:
				actions.RestartAll()
			case <-quit.ClickedCh:
				_ = actions.Quit()
			}
		}
	}()
}

// SetStatus shows the backends' state in the menu's first line. It is safe
// from any goroutine, before or after the menu is built.
func (t *Tray) SetStatus(st backend.Status) {
	line := StatusLine(st)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.line = line
	if t.status != nil {
		t.status.SetTitle(line)
	}
}

// Stop ends the click loop and removes the icon.
func (t *Tray) Stop() {
	if t.end == nil {
		return
	}
	close(t.quit)
	t.end()
	<-t.done
}
