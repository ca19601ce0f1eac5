//go:build desktop && (linux || windows)

package desktop

import (
	"slices"
	"sync"

	"fyne.io/systray"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/update"
)

// Tray is the system tray icon and menu. Its click loops are the goroutines
// it owns, one per item; each ends when its item is removed (its click
// channel closes) or at Stop, which also removes the icon.
type Tray struct {
	actions Actions
	end     func()
	quit    chan struct{}
	loops   sync.WaitGroup

	mu     sync.Mutex        // guards everything below
	status *systray.MenuItem // nil until the menu is built
	update *systray.MenuItem // "Restart to update": shown when an update is ready
	built  []string          // restartItems of the backends the menu was built for
	line   string            // the latest status line, for an item built later
	names  []string          // the latest backend names
	ready  string            // the version of a ready update, "" for none
}

// StartTray shows the tray icon when the platform can (on Linux: a session
// bus to talk StatusNotifierItem on). A tray host that appears later is
// picked up by systray itself. Clicking the icon opens Hermes.
func StartTray(actions Actions, icons Icons) *Tray {
	t := &Tray{actions: actions, quit: make(chan struct{}), line: "Starting…"}
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
	systray.SetOnTapped(t.actions.OpenHermes)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buildMenu()
}

// buildMenu adds the menu's items for the backends named in t.names. With
// several, "Restart all backends" is followed by one "Restart NAME" each,
// in the top-level menu rather than a submenu: systray answers a tray
// host's first layout request one level deep (its workaround for
// libdbusmenu-gtk3), so a host or screen reader that asked once saw an
// empty "Restart…". Call with mu held.
func (t *Tray) buildMenu() {
	systray.SetTooltip(tooltip(t.line))
	t.built = restartItems(t.names)
	t.status = systray.AddMenuItem(t.line, "State of the backends")
	t.status.Disable()
	systray.AddSeparator()
	t.loop(func() { t.actions.OpenHermes() }, systray.AddMenuItem("Open Hermes", "Open Hermes in your browser"))
	t.loop(t.actions.ShowWindow, systray.AddMenuItem("Show window", "Show the Hermes Desktop window"))
	if len(t.names) > 1 {
		t.loop(func() { t.actions.Restart("") }, systray.AddMenuItem("Restart all backends", "Restart every backend"))
		for _, name := range t.names {
			t.loop(func() { t.actions.Restart(name) }, systray.AddMenuItem("Restart "+name, "Restart backend "+name))
		}
	} else {
		t.loop(func() { t.actions.Restart("") }, systray.AddMenuItem("Restart backend", "Restart the backend"))
	}
	t.update = systray.AddMenuItem("Restart to update", "Install the downloaded update; the backends keep running")
	t.loop(t.actions.ApplyUpdate, t.update)
	t.showUpdate()
	systray.AddSeparator()
	t.loop(t.actions.SaveReport, systray.AddMenuItem("Save a diagnostic report…", "Save logs, status and versions, secrets redacted, to send when something went wrong"))
	t.loop(func() { _ = t.actions.Quit() }, systray.AddMenuItem("Quit", "Stop every backend and quit"))
}

// restartItems names the backends that get a restart item of their own:
// none when there is one ("Restart backend" restarts it).
func restartItems(names []string) []string {
	if len(names) < 2 {
		return nil
	}
	return slices.Clone(names)
}

// loop runs fn on every click of item until the item is removed or Stop.
// systray drops a click unless someone is receiving: this loop always is.
func (t *Tray) loop(fn func(), item *systray.MenuItem) {
	clicks := item.ClickedCh
	t.loops.Add(1)
	go func() {
		defer t.loops.Done()
		for {
			select {
			case <-t.quit:
				return
			case _, ok := <-clicks:
				if !ok { // removed by a rebuild of the menu
					return
				}
				fn()
			}
		}
	}()
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
	if t.status == nil {
		return
	}
	if !slices.Equal(t.built, restartItems(t.names)) {
		// systray can only append an item: a backend added or removed
		// rebuilds the menu, so its restart items stay in order.
		systray.ResetMenu()
		t.buildMenu()
		return
	}
	systray.SetTooltip(tooltip(line))
	t.status.SetTitle(line)
	t.showUpdate()
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

// tooltip is the icon's tooltip: the app and the state of its backends, so
// that pointing at the icon says as much as opening the menu.
func tooltip(line string) string { return "Hermes Desktop: " + line }

// Stop ends the click loops and removes the icon.
func (t *Tray) Stop() {
	if t.end == nil {
		return
	}
	close(t.quit)
	t.end()
	t.loops.Wait()
}
