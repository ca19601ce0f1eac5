//go:build linux

// Command fakewatcher plays a desktop's tray host and notification server
// for the GUI smoke test and the idle bench: it owns
// org.kde.StatusNotifierWatcher on the session bus, says a host is
// registered, and prints each item that registers; it owns
// org.freedesktop.Notifications and prints each notification's summary.
// It runs until killed.
package main

import (
	"fmt"
	"os"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
)

type watcher struct{}

// RegisterStatusNotifierItem is what an app's tray icon calls to appear.
func (watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	fmt.Printf("fakewatcher: item %s registered by %s\n", service, sender)
	return nil
}

// RegisterStatusNotifierHost is called by tray hosts; accepted and ignored.
func (watcher) RegisterStatusNotifierHost(string) *dbus.Error { return nil }

type notifications struct{ shown uint32 }

// Notify is how an app shows a desktop notification.
func (n *notifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.shown++
	fmt.Printf("fakewatcher: notification from %s: %s\n", app, summary)
	return n.shown, nil
}

func main() {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakewatcher:", err)
		os.Exit(1)
	}
	const path, iface = "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"
	if err := conn.Export(watcher{}, path, iface); err != nil {
		fmt.Fprintln(os.Stderr, "fakewatcher:", err)
		os.Exit(1)
	}
	if _, err := prop.Export(conn, path, prop.Map{iface: {
		"IsStatusNotifierHostRegistered": {Value: true},
		"RegisteredStatusNotifierItems":  {Value: []string{}},
		"ProtocolVersion":                {Value: int32(0)},
	}}); err != nil {
		fmt.Fprintln(os.Stderr, "fakewatcher:", err)
		os.Exit(1)
	}
	if r, err := conn.RequestName(iface, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		fmt.Fprintln(os.Stderr, "fakewatcher: could not own", iface, r, err)
		os.Exit(1)
	}
	const notifyPath, notifyIface = "/org/freedesktop/Notifications", "org.freedesktop.Notifications"
	if err := conn.Export(&notifications{}, notifyPath, notifyIface); err != nil {
		fmt.Fprintln(os.Stderr, "fakewatcher:", err)
		os.Exit(1)
	}
	if r, err := conn.RequestName(notifyIface, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		fmt.Fprintln(os.Stderr, "fakewatcher: could not own", notifyIface, r, err)
		os.Exit(1)
	}
	fmt.Println("fakewatcher: ready")
	select {}
}
