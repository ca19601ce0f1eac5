//go:build linux

// Command fakewatcher plays a desktop's tray host for the GUI smoke test: it
// owns org.kde.StatusNotifierWatcher on the session bus, says a host is
// registered, and prints each item that registers. It runs until killed.
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
	fmt.Println("fakewatcher: ready")
	select {}
}
