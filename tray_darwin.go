//go:build desktop

package main

// On macOS, Wails v2 has no tray and fyne.io/systray fights it for the main
// loop, so the tray's actions live in the application menu (menu_darwin.go)
// and closing the window quits.

type tray struct{}

func startTray(*App) *tray { return &tray{} }
func (*tray) stop()        {}

func trayAvailable() bool { return false }
