package desktop

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// autostartName names the per-user Run value.
const autostartName = "hermes-desktop"

// SetStartAtLogin sets (or deletes) the per-user Run value.
func SetStartAtLogin(on bool, self string) error {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("autostart: open Run key: %w", err)
	}
	defer k.Close()
	if !on {
		if err := k.DeleteValue(autostartName); err != nil && !errors.Is(err, registry.ErrNotExist) {
			return fmt.Errorf("autostart: %w", err)
		}
		return nil
	}
	if err := k.SetStringValue(autostartName, `"`+self+`"`); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}
