//go:build desktop

package main

import _ "embed"

//go:embed build/windows/icon.ico
var trayIconICO []byte

// trayIcon: the Windows tray wants an .ico.
func trayIcon() []byte { return trayIconICO }

// canStartTray: the Windows notification area is always there.
func canStartTray() bool { return true }

// trayAvailable: so a hidden window can always be brought back.
func trayAvailable() bool { return true }
