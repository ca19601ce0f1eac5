package main

//lint:file-ignore U1000 the App's wiring is used by the desktop build (gui_desktop.go, tag "desktop") and its tests, not by a plain headless build for other OSes

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"hermes-desktop/app/desktop"
	"hermes-desktop/backend"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/reapreport"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
	"hermes-desktop/contract/logs"
)

// App is the page's API: every exported method is bound to the frontend
// (window.go.main.App.*) and returns (T, error); the work happens in
// backend. The window and the tray around the page are the shell's
// (app_shell.go), so that the page binds nothing it does not call.
type App struct {
	l        *backend.Launcher
	self     string
	stateDir string
	// settings is the one writer of config.json: the Settings page's edits
	// and the backend list of Add backend and Remove.
	settings *settings.Store
	// started is the settings as saved when the app started, which the
	// launcher runs with: what was saved since applies at the next start
	// (settings.PendingRelaunch).
	started settings.Settings
	// win is the window and the tray; its context is the one the page's
	// calls run under: Quit and the end of the app cancel it.
	win *shell
	// lastReport is the diagnostic report saved last: the one folder the
	// page may ask to open (it never names a path itself).
	lastReport atomic.Pointer[string]
}

func newApp(l *backend.Launcher, self string) *App {
	a := &App{l: l, self: self, stateDir: l.StateDir(), settings: l.Saved().Store(), win: newShell(l)}
	a.started, _ = a.settings.Load() // as the launcher read them (app/cli)
	return a
}

// Status returns the instance's status.
func (a *App) Status() (model.Status, error) { return a.l.Status(), nil }

// Restart restarts one backend ("" restarts all).
func (a *App) Restart(name string) error { return a.l.Restart(a.win.ctx, name) }

// StartBackend starts a stopped or failed backend.
func (a *App) StartBackend(name string) error { return a.l.StartBackend(a.win.ctx, name) }

// StopBackend stops one backend and leaves it stopped.
func (a *App) StopBackend(name string) error { return a.l.StopBackend(a.win.ctx, name) }

// Logs returns up to max lines of a backend's output with seq > after.
func (a *App) Logs(name string, after uint64, max int) ([]logs.Line, error) {
	return a.l.Logs(name, after, max)
}

// OpenURL opens a backend's local URL in the default browser. Only
// loopback http(s) URLs are opened: the page never gets to open anything
// else through us.
func (a *App) OpenURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		return fmt.Errorf("not a local web address: %q", raw)
	}
	host := u.Hostname()
	if !reap.IsLoopbackHost(host) {
		return fmt.Errorf("only local addresses are opened, not %q", host)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("bad port in %q", raw)
		}
	}
	return a.l.Pages().OpenExternal(u.String())
}

// OpenHermes opens Hermes' page in the default browser: the named
// backend's, or the first page-serving backend's when name is "". It
// returns the URL it opened.
func (a *App) OpenHermes(name string) (string, error) { return a.l.Pages().Open(name) }

// ConnectionDetails returns what a Hermes client needs to reach a backend
// (URL, session token, WebSocket URL): the one place the token is shown,
// when the user asks to copy it.
func (a *App) ConnectionDetails(name string) (string, error) {
	return a.l.Pages().ConnectionDetails(name)
}

// AddBackend adds a backend, starts it (unless disabled) and saves the
// addition (Saved.AddBackend, which `backends add` uses too).
func (a *App) AddBackend(b settings.Backend) error { return a.l.Saved().AddBackend(b) }

// RemoveBackend stops a backend (its whole tree) and removes it from the
// saved list.
func (a *App) RemoveBackend(name string) error {
	return a.l.Saved().RemoveBackend(a.win.ctx, name)
}

// ApplyInstalledUpdate hands the app over to the new executable a package
// upgrade put on disk ("Restart to apply"), keeping the backends running
// (Updater.ApplyInstalled, an adopt handoff).
func (a *App) ApplyInstalledUpdate() error {
	return a.l.Updates().ApplyInstalled(a.win.ctx)
}

// CheckForUpdate asks the update feed now ("Check now"); a newer version
// for a self-managed install starts downloading in the background, its
// progress in the status.
func (a *App) CheckForUpdate() (update.Check, error) {
	return a.l.Updates().Check(a.win.ctx, true)
}

// ApplyUpdate installs the downloaded update and hands over to it
// ("Restart to update"): the backends keep running, this window closes
// and the new version's opens.
func (a *App) ApplyUpdate() error {
	_, err := a.l.Updates().Apply(a.win.ctx)
	return err
}

// SkipVersion stops offering version ("Skip this version").
func (a *App) SkipVersion(version string) error { return a.l.Updates().Skip(version) }

// OpenLogFolder opens <state>/logs in the file manager.
func (a *App) OpenLogFolder() error {
	return a.l.Pages().OpenExternal(filepath.Join(a.stateDir, "logs"))
}

// ScanOrphans is the dry run behind "Scan now": what would be reaped.
func (a *App) ScanOrphans() (*reapreport.Report, error) {
	return a.l.Reap(a.win.ctx, true, nil, nil)
}

// ReapOrphans reaps the PIDs of a dry run the user confirmed, each only if
// it still qualifies now.
func (a *App) ReapOrphans(pids []int) (*reapreport.Report, error) {
	if len(pids) == 0 {
		return nil, errors.New("nothing to reap: run a scan first")
	}
	return a.l.Reap(a.win.ctx, false, nil, pids)
}

// GetSettings returns the saved settings and the defaults.
func (a *App) GetSettings() (settings.View, error) {
	s, notice := a.settings.Load()
	if notice != "" {
		a.l.AddNotice(notice)
	}
	return a.settingsView(s, notice), nil
}

// SaveSettings saves the Settings page's edit: the fields it names, laid
// over the settings saved now (so the backend list stays as Add backend and
// Remove left it, whatever the page loaded), validated. It applies at once
// what a running app can: start at login, the update feed and automatic
// updates, the ssh config file of connections made from now on
// (Saved.Applied). The rest applies at the next start.
func (a *App) SaveSettings(e settings.Edit) (settings.View, error) {
	s, err := a.settings.Edit(e)
	if err != nil {
		return settings.View{}, err
	}
	a.l.Saved().Applied(s)
	if err := desktop.SetStartAtLogin(s.StartAtLogin, a.self); err != nil {
		return settings.View{}, fmt.Errorf("settings saved, but start at login could not be changed: %w", err)
	}
	return a.settingsView(s, ""), nil
}

func (a *App) settingsView(s settings.Settings, notice string) settings.View {
	pending, backends := settings.PendingRelaunch(a.started, s, backend.DefaultSettings(a.self))
	return settings.View{Settings: s, Defaults: backend.DefaultSettings(a.self), Path: settings.Path(a.stateDir), Notice: notice,
		Pending: pending, PendingRestartsBackends: backends}
}

// Relaunch hands Hermes Desktop over to a new run of this executable, so
// that the settings saved since it started apply ("Restart Hermes Desktop"
// on the Settings page; Launcher.Relaunch). The backends keep
// running unless a pending setting is given to a backend as it starts;
// then they restart with the app. This window closes once the new
// instance serves, and the new one opens its own.
func (a *App) Relaunch() error {
	saved, notice := a.settings.Load()
	if notice != "" {
		return fmt.Errorf("the saved settings could not be read (%s): nothing was restarted", notice)
	}
	_, restartBackends := settings.PendingRelaunch(a.started, saved, backend.DefaultSettings(a.self))
	_, err := a.l.Relaunch(a.win.ctx, !restartBackends)
	return err
}

// Quit tears every backend down and closes the app. It cancels what the
// page asked for that still runs (a restart, a handoff not yet committed).
func (a *App) Quit() error {
	a.win.cancel()
	a.win.quit()
	return nil
}

// SetWindowVisible tells the App whether the window can be seen (the page
// reports visibilitychange: minimized, hidden to the tray, shown again).
// Hidden, the window is sent nothing; shown, it gets one fresh status.
func (a *App) SetWindowVisible(visible bool) error {
	a.win.setVisible(visible)
	return nil
}
