// Package desktop is the app's presence on the desktop outside the window:
// the tray icon and menu (Linux StatusNotifierItem, Windows notification
// area), macOS's application menu that stands in for the tray, and start at
// login (XDG autostart, a LaunchAgent, the Run key), each in per-OS files.
//
// It sits beside app/cli, above backend: it reads a model.Status for
// the tray's status line and calls back into the app only through Actions.
// It never imports Wails' runtime (only its menu types, on macOS) and is
// never imported by the engine.
package desktop

// Actions are what the tray and the app menu can ask of the app. Each
// returns at once: long work (a restart's grace period) runs elsewhere.
type Actions interface {
	// ShowWindow brings the window back and to the front.
	ShowWindow()
	// OpenHermes opens Hermes' page in the default browser (the first
	// page-serving backend's), or shows the window when there is none.
	OpenHermes()
	// Restart restarts one backend ("" for all) in the background.
	Restart(name string)
	// Quit tears every backend down and closes the app.
	Quit() error
	// ApplyUpdate installs the downloaded update in the background and
	// hands over to it ("Restart to update"): the backends keep running.
	ApplyUpdate()
	// SaveReport saves a diagnostic report in the background and says
	// where in a notification ("Save a diagnostic report...").
	SaveReport()
}

// Icons are the tray icon's images; main embeds them (go:embed cannot
// reach outside a package's directory).
type Icons struct {
	PNG []byte // Linux
	ICO []byte // Windows
}
