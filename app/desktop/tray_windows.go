//go:build desktop

package desktop

// trayIcon: the Windows tray wants an .ico.
func trayIcon(icons Icons) []byte { return icons.ICO }

// canStartTray: the Windows notification area is always there.
func canStartTray() bool { return true }

// TrayAvailable is always true on Windows, so a hidden window can always be
// brought back.
func TrayAvailable() bool { return true }
