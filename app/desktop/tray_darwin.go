//go:build desktop

package desktop

import "hermes-desktop/backend/model"

// On macOS, Wails v2 has no tray and fyne.io/systray fights it for the main
// loop, so the tray's actions live in the application menu (menu_darwin.go)
// and closing the window quits.

// Tray is empty on macOS.
type Tray struct{}

// StartTray shows nothing on macOS.
func StartTray(Actions, Icons) *Tray { return &Tray{} }

// SetStatus has no status line to update on macOS.
func (*Tray) SetStatus(model.Status) {}

// Stop has nothing to stop on macOS.
func (*Tray) Stop() {}

// TrayAvailable is false: closing the window quits.
func TrayAvailable() bool { return false }
