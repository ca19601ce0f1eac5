//go:build desktop && !darwin

package desktop

import "github.com/wailsapp/wails/v2/pkg/menu"

// AppMenu is nil on Linux and Windows: they get their actions from the tray
// instead.
func AppMenu(Actions) *menu.Menu { return nil }
