//go:build desktop

package desktop

import (
	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
)

// AppMenu gives macOS the tray's actions in the application menu.
func AppMenu(actions Actions) *menu.Menu {
	m := menu.NewMenu()
	m.Append(menu.AppMenu())
	hermes := m.AddSubmenu("Hermes")
	hermes.AddText("Open Hermes", keys.CmdOrCtrl("o"), func(*menu.CallbackData) { actions.OpenHermes() })
	hermes.AddText("Show Window", keys.CmdOrCtrl("1"), func(*menu.CallbackData) { actions.ShowWindow() })
	hermes.AddText("Restart Backends", keys.CmdOrCtrl("r"), func(*menu.CallbackData) { actions.Restart("") })
	// A static menu cannot appear only when an update is ready: this item
	// checks, downloads and applies in one go (the window shows why not).
	hermes.AddText("Update Hermes Desktop", nil, func(*menu.CallbackData) { actions.ApplyUpdate() })
	hermes.AddSeparator()
	hermes.AddText("Quit Hermes Desktop", keys.CmdOrCtrl("q"), func(*menu.CallbackData) { _ = actions.Quit() })
	m.Append(menu.EditMenu())
	return m
}
