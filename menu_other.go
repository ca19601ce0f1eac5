//go:build desktop && !darwin

package main

import "github.com/wailsapp/wails/v2/pkg/menu"

// appMenu: Linux and Windows get their actions from the tray instead.
func appMenu(*App) *menu.Menu { return nil }
