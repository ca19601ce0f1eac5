package main

//lint:file-ignore U1000 the App's wiring is used by the desktop build (gui_desktop.go, tag "desktop") and its tests, not by a plain headless build for other OSes

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"hermes-desktop/app/desktop"
	"hermes-desktop/backend"
	"hermes-desktop/backend/logs"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
)

// windowUI is what the App needs from the window toolkit. The Wails adapter
// (gui_desktop.go) implements it; the App never imports Wails, so it is
// tested with a fake.
type windowUI interface {
	Emit(topic string, data any)
	Show()
	Hide()
	Quit()
}

// App is the facade the window and the tray call. Every exported method is
// bound to the frontend (window.go.main.App.*) and returns (T, error); the
// work happens in backend.
type App struct {
	l        *backend.Launcher
	self     string
	stateDir string
	// settings is the one writer of config.json: the Settings page's edits
	// and the backend list of Add backend and Remove.
	settings *settings.Store
	// started is the settings as saved when the app started, which the
	// launcher runs with: what was saved since applies at the next start
	// (settings.PendingRestart).
	started settings.Settings

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
	hinting atomic.Bool
	// lastReport is the diagnostic report saved last: the one folder the
	// page may ask to open (it never names a path itself).
	lastReport atomic.Pointer[string]
	pumpStop   chan struct{}
	pumpDone   chan struct{}
	// visible is whether the window can be seen; shown pokes the pump when
	// it becomes visible again.
	visible  atomic.Bool
	shown    chan struct{}
	attachMu sync.Mutex // guards pumpStop and pumpDone

	// background owns the restarts the tray and the app menu ask for: they
	// may take a grace period, and the menu must stay responsive. Ended by
	// endBackground, which cancels them and waits.
	background       sync.WaitGroup
	backgroundCtx    context.Context
	backgroundCancel context.CancelFunc
}

func newApp(l *backend.Launcher, self string) *App {
	ctx, cancel := context.WithCancel(context.Background())
	a := &App{l: l, self: self, stateDir: l.StateDir(), settings: l.Settings(), trayAvailable: func() bool { return false },
		backgroundCtx: ctx, backgroundCancel: cancel, shown: make(chan struct{}, 1)}
	a.started, _ = a.settings.Load() // as the launcher read them (app/cli)
	a.visible.Store(true)
	return a
}

// restartInBackground restarts a backend ("" for all) without blocking the
// caller (a tray click).
func (a *App) restartInBackground(name string) {
	a.background.Add(1)
	go func() {
		defer a.background.Done()
		if err := a.l.Restart(a.backgroundCtx, name); err != nil && a.backgroundCtx.Err() == nil {
			a.l.Logger().Warn("tray: restart", "backend", name, "err", err)
			a.tell("Could not restart", err.Error())
		}
	}()
}

// applyUpdateInBackground applies a ready update without blocking the
// caller (a tray click). Its outcome shows in the status: the window
// closes once the new version serves, or the banner says what failed.
func (a *App) applyUpdateInBackground() {
	a.background.Add(1)
	go func() {
		defer a.background.Done()
		_, _ = a.l.Updates().Apply(a.backgroundCtx)
	}()
}

// endBackground cancels what runs in the background and waits for it.
func (a *App) endBackground() {
	a.backgroundCancel()
	a.background.Wait()
}

// menuActions adapts the App to what the tray and the app menu call,
// without adding methods the page could call.
type menuActions struct{ a *App }

func (m menuActions) ShowWindow()         { m.a.showWindow() }
func (m menuActions) Restart(name string) { m.a.restartInBackground(name) }
func (m menuActions) Quit() error         { return m.a.Quit() }
func (m menuActions) ApplyUpdate()        { m.a.applyUpdateInBackground() }
func (m menuActions) SaveReport()         { m.a.saveReportInBackground() }

// OpenHermes opens Hermes' page, or shows the window when it cannot (no
// page ready yet, no browser opener): the launcher log and a notification
// say why, since the window may be on screen already and change nothing.
func (m menuActions) OpenHermes() {
	if _, err := m.a.l.OpenPage(""); err != nil {
		m.a.l.Logger().Warn("tray: Open Hermes", "err", err)
		m.a.tell("Could not open Hermes", err.Error())
		m.a.showWindow()
	}
}

func (a *App) showWindow() {
	if ui := a.ui.Load(); ui != nil {
		(*ui).Show()
		_ = a.SetWindowVisible(true)
	}
}

// beforeClose decides what the window's close button does: hide to the tray
// when a tray can bring the window back, else quit (with full teardown).
// It returns true to keep the app running.
func (a *App) beforeClose() bool {
	if a.quitting.Load() {
		return false
	}
	if a.trayAvailable() {
		if ui := a.ui.Load(); ui != nil {
			(*ui).Hide()
			_ = a.SetWindowVisible(false)
			a.hintStillRunning()
			return true
		}
	}
	a.quitting.Store(true)
	return false
}

// Status returns the instance's status.
func (a *App) Status() (model.Status, error) { return a.l.Status(), nil }

// Restart restarts one backend ("" restarts all).
func (a *App) Restart(name string) error { return a.l.Restart(context.Background(), name) }

// StartBackend starts a stopped or failed backend.
func (a *App) StartBackend(name string) error { return a.l.StartBackend(context.Background(), name) }

// StopBackend stops one backend and leaves it stopped.
func (a *App) StopBackend(name string) error { return a.l.StopBackend(context.Background(), name) }

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
	return a.l.OpenExternal(u.String())
}

// setOnStatus registers what sees every status (the tray's line), from any
// goroutine.
func (a *App) setOnStatus(fn func(model.Status)) { a.onStatus.Store(&fn) }

// OpenHermes opens Hermes' page in the default browser: the named
// backend's, or the first page-serving backend's when name is "". It
// returns the URL it opened.
func (a *App) OpenHermes(name string) (string, error) { return a.l.OpenPage(name) }

// ConnectionDetails returns what a Hermes client needs to reach a backend
// (URL, session token, WebSocket URL): the one place the token is shown,
// when the user asks to copy it.
func (a *App) ConnectionDetails(name string) (string, error) { return a.l.ConnectionDetails(name) }

// AddBackend adds a backend, starts it (unless disabled) and saves the
// list (Launcher.AddSavedBackend, which `backends add` uses too).
func (a *App) AddBackend(b settings.Backend) error { return a.l.AddSavedBackend(b) }

// RemoveBackend stops a backend (its whole tree) and removes it from the
// saved list.
func (a *App) RemoveBackend(name string) error {
	return a.l.RemoveSavedBackend(context.Background(), name)
}

// RestartToApply hands the app over to the new executable a package
// upgrade put on disk, keeping the backends running (an adopt handoff).
func (a *App) RestartToApply() error {
	return a.l.Updates().RestartToApply(context.Background())
}

// CheckForUpdate asks the update feed now ("Check now"); a newer version
// for a self-managed install starts downloading in the background, its
// progress in the status.
func (a *App) CheckForUpdate() (update.Check, error) {
	return a.l.Updates().Check(context.Background(), true)
}

// ApplyUpdate installs the downloaded update and hands over to it
// ("Restart to update"): the backends keep running, this window closes
// and the new version's opens.
func (a *App) ApplyUpdate() error {
	_, err := a.l.Updates().Apply(a.backgroundCtx)
	return err
}

// SkipVersion stops offering version ("Skip this version").
func (a *App) SkipVersion(version string) error { return a.l.Updates().Skip(version) }

// OpenLogFolder opens <state>/logs in the file manager.
func (a *App) OpenLogFolder() error {
	return a.l.OpenExternal(filepath.Join(a.stateDir, "logs"))
}

// ScanOrphans is the dry run behind "Scan now": what would be reaped.
func (a *App) ScanOrphans() (*reap.Report, error) {
	return a.l.Reap(context.Background(), true, nil, nil)
}

// ReapOrphans reaps the PIDs of a dry run the user confirmed, each only if
// it still qualifies now.
func (a *App) ReapOrphans(pids []int) (*reap.Report, error) {
	if len(pids) == 0 {
		return nil, errors.New("nothing to reap: run a scan first")
	}
	return a.l.Reap(context.Background(), false, nil, pids)
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
// (Launcher.SettingsSaved). The rest applies at the next start.
func (a *App) SaveSettings(e settings.Edit) (settings.View, error) {
	s, err := a.settings.Edit(e)
	if err != nil {
		return settings.View{}, err
	}
	a.l.SettingsSaved(s)
	if err := desktop.SetStartAtLogin(s.StartAtLogin, a.self); err != nil {
		return settings.View{}, fmt.Errorf("settings saved, but start at login could not be changed: %w", err)
	}
	return a.settingsView(s, ""), nil
}

func (a *App) settingsView(s settings.Settings, notice string) settings.View {
	pending, backends := settings.PendingRestart(a.started, s, backend.DefaultSettings(a.self))
	return settings.View{Settings: s, Defaults: backend.DefaultSettings(a.self), Path: settings.Path(a.stateDir), Notice: notice,
		Pending: pending, PendingRestartsBackends: backends}
}

// RestartApp restarts Hermes Desktop so that the settings saved since it
// started apply ("Restart Hermes Desktop" on the Settings page): a handoff
// to a new run of this executable, which reads them. The backends keep
// running unless a pending setting is given to a backend as it starts;
// then they restart with the app. This window closes once the new
// instance serves, and the new one opens its own.
func (a *App) RestartApp() error {
	saved, notice := a.settings.Load()
	if notice != "" {
		return fmt.Errorf("the saved settings could not be read (%s): nothing was restarted", notice)
	}
	_, restartBackends := settings.PendingRestart(a.started, saved, backend.DefaultSettings(a.self))
	_, err := a.l.RestartSelf(context.Background(), !restartBackends)
	return err
}

// Quit tears every backend down and closes the app.
func (a *App) Quit() error {
	a.quitting.Store(true)
	if ui := a.ui.Load(); ui != nil {
		(*ui).Quit()
		return nil
	}
	a.l.RequestStop() // no window (yet): the launcher's owner stops
	return nil
}
