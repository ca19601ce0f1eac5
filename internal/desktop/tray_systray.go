//go:build desktop && (linux || windows)

package desktop

import (
	"sync"

	"fyne.io/systray"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/update"
)

// Tray is the system tray icon and menu. Its click loops are the goroutines
// it owns (one for the fixed items, one per backend item); Stop ends them
// and removes the icon.
type Tray struct {
	actions Actions
	end     func()
	quit    chan struct{}
	loops   sync.WaitGroup

	mu       sync.Mutex // guards everything below
	status   *systray.MenuItem
	restart  *systray.MenuItem // "Restart backend": the one backend
	restarts *systray.MenuItem // "Restart…": a submenu when there are several
	each     map[string]*systray.MenuItem
	update   *systray.MenuItem // "Restart to update": shown when an update is ready
	line     string            // the latest status line, for an item built later
	names    []string          // the latest backend names
	ready    string            // the version of a ready update, "" for none
}

// StartTray shows the tray icon when the platform can (on Linux: a session
// bus to talk StatusNotifierItem on). A tray host that appears later is
// picked up by systray itself. Clicking the icon opens Hermes.
func StartTray(actions Actions, icons Icons) *Tray {
	t := &Tray{actions: actions, quit: make(chan struct{}), line: "Starting…", each: map[string]*systray.MenuItem{}}
	if !canStartTray() {
		return t
	}
	start, end := systray.RunWithExternalLoop(func() { t.build(icons) }, func() {})
	t.end = end
	start()
	return t
}

func (t *Tray) build(icons Icons) {
	systray.SetIcon(trayIcon(icons))
	systray.SetTitle("Hermes Desktop")
	systray.SetTooltip("Hermes Desktop")
	systray.SetOnTapped(t.actions.OpenHermes)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.status = systray.AddMenuItem(t.line, "State of the backends")
	t.status.Disable()
	systray.AddSeparator()
	open := systray.AddMenuItem("Open Hermes", "Open Hermes in your browser")
	show := systray.AddMenuItem("Show window", "Show the Hermes Desktop window")
	t.restart = systray.AddMenuItem("Restart backend", "Restart the backend")
	t.restarts = systray.AddMenuItem("Restart…", "Restart one backend or all")
	all := t.restarts.AddSubMenuItem("All backends", "Restart every backend")
	t.update = systray.AddMenuItem("Restart to update", "Install the downloaded update; the backends keep running")
	systray.AddSeparator()
	quit := systray.AddMenuItem("Quit", "Stop every backend and quit")
	t.showRestarts()
	t.showUpdate()
	t.loop(func() { t.actions.OpenHermes() }, open.ClickedCh)
	t.loop(t.actions.ShowWindow, show.ClickedCh)
	t.loop(func() { t.actions.Restart("") }, t.restart.ClickedCh, all.ClickedCh)
	t.loop(func() { _ = t.actions.Quit() }, quit.ClickedCh)
	t.loop(t.actions.ApplyUpdate, t.update.ClickedCh)
}

// loop runs fn on every click of the items until Stop. systray drops a
// click unless someone is receiving: this loop always is.
func (t *Tray) loop(fn func(), clicks ...chan struct{}) {
	for _, c := range clicks {
		t.loops.Add(1)
		go func() {
			defer t.loops.Done()
			for {
				select {
				case <-t.quit:
					return
				case <-c:
					fn()
				}
			}
		}()
	}
}

// SetStatus shows the backends' state in the menu's first line and keeps
// one restart item per backend. It is safe from any goroutine, before or
// after the menu is built.
func (t *Tray) SetStatus(st model.Status) {
	line := StatusLine(st)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.line = line
	t.names = t.names[:0]
	for _, b := range st.Backends {
		t.names = append(t.names, b.Name)
	}
	t.ready = ""
	if u := st.Instance.Update; u != nil && u.State == update.StateReady {
		t.ready = u.Latest
	}
	if t.status != nil {
		t.status.SetTitle(line)
		t.showRestarts()
		t.showUpdate()
	}
}

// showUpdate shows "Restart to update" while an update is ready. Call with
// mu held.
func (t *Tray) showUpdate() {
	if t.ready == "" {
		t.update.Hide()
		return
	}
	t.update.SetTitle("Restart to update (" + t.ready + ")")
	t.update.Show()
}

// showRestarts shows "Restart backend" for one backend, and "Restart…" with
// an item per backend for several. Items of removed backends are hidden
// (systray cannot delete a submenu item). Call with mu held.
func (t *Tray) showRestarts() {
	if len(t.names) > 1 {
		t.restart.Hide()
		t.restarts.Show()
	} else {
		t.restarts.Hide()
		t.restart.Show()
	}
	live := map[string]bool{}
	for _, name := range t.names {
		live[name] = true
		if _, ok := t.each[name]; !ok {
			item := t.restarts.AddSubMenuItem(name, "Restart backend "+name)
			t.each[name] = item
			t.loop(func() { t.actions.Restart(name) }, item.ClickedCh)
		}
		t.each[name].Show()
	}
	for name, item := range t.each {
		if !live[name] {
			item.Hide()
		}
	}
}

// Stop ends the click loops and removes the icon.
func (t *Tray) Stop() {
	if t.end == nil {
		return
	}
	close(t.quit)
	t.end()
	t.loops.Wait()
}
