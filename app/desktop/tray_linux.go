//go:build desktop

package desktop

import (
	"github.com/godbus/dbus/v5"
)

// trayIcon: StatusNotifierItem hosts take a PNG.
func trayIcon(icons Icons) []byte { return icons.PNG }

// sessionBus opens a private session-bus connection without auto-starting a
// bus (dbus-launch would leave a daemon behind that outlives us).
func sessionBus() (*dbus.Conn, error) {
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return nil, err
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, err
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// canStartTray: systray needs a reachable session bus, and crashes in its
// end() if it never connected.
func canStartTray() bool {
	conn, err := sessionBus()
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// TrayAvailable asks the bus whether a tray host shows StatusNotifierItems
// now (the watcher exists and has a host). Only then can a hidden window be
// brought back, so only then does closing the window hide it.
func TrayAvailable() bool {
	conn, err := sessionBus()
	if err != nil {
		return false
	}
	defer conn.Close()
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has); err != nil || !has {
		return false
	}
	v, err := conn.Object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher").
		GetProperty("org.kde.StatusNotifierWatcher.IsStatusNotifierHostRegistered")
	if err != nil {
		return false
	}
	registered, ok := v.Value().(bool)
	return ok && registered
}
