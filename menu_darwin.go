//go:build desktop

package main

import (
	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
)

// appMenu gives macOS the tray's actions in the application menu.
func appMenu(app *App) *menu.Menu {
	m := menu.NewMenu()
	m.Append(menu.AppMenu())
	hermes := m.AddSubmenu("Hermes")
	hermes.AddText("Open Hermes", keys.CmdOrCtrl("o"), func(*menu.CallbackData) { app.showWindow() })
	hermes.AddText("Restart backend", keys.CmdOrCtrl("r"), func(*menu.CallbackData) { go func() { _ = app.Restart("") }() })
	hermes.AddSeparator()
	hermes.AddText("Quit Hermes Desktop", keys.CmdOrCtrl("q"), func(*menu.CallbackData) { _ = app.Quit() })
	m.Append(menu.EditMenu())
	return m
}
