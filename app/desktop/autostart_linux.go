package desktop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"hermes-desktop/lockfile"
)

// autostartName names the XDG autostart entry.
const autostartName = "hermes-desktop"

func autostartPath() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "autostart", autostartName+".desktop"), nil
}

// SetStartAtLogin writes (or removes) an XDG autostart entry.
func SetStartAtLogin(on bool, self string) error {
	path, err := autostartPath()
	if err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	if !on {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("autostart: %w", err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	entry := strings.Join([]string{
		"[Desktop Entry]",
		"Type=Application",
		"Name=Hermes Desktop",
		"Comment=Starts and supervises the local Hermes backends",
		"Exec=" + desktopExecQuote(self),
		"Icon=hermes-desktop",
		"Terminal=false",
		"X-GNOME-Autostart-enabled=true",
		"",
	}, "\n")
	return lockfile.WriteFileAtomic(path, []byte(entry))
}

// desktopExecQuote quotes a path for a .desktop Exec= key (Desktop Entry
// Specification: double quotes, with ", `, $ and \ escaped).
func desktopExecQuote(path string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", `$`, `\$`)
	return `"` + r.Replace(path) + `"`
}
