package desktop

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"hermes-desktop/lockfile"
)

const launchAgentLabel = "io.hermes.desktop"

// SetStartAtLogin writes (or removes) a per-user LaunchAgent that starts
// the app at login.
func SetStartAtLogin(on bool, self string) error {
	home, err := os.UserHomeDir()
	if err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	path := filepath.Join(home, "Library", "LaunchAgents", launchAgentLabel+".plist")
	if !on {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("autostart: %w", err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	var esc strings.Builder
	_ = xml.EscapeText(&esc, []byte(self))
	plist := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key><string>` + launchAgentLabel + `</string>
	<key>ProgramArguments</key><array><string>` + esc.String() + `</string></array>
	<key>RunAtLoad</key><true/>
	<key>ProcessType</key><string>Interactive</string>
</dict>
</plist>
`
	return lockfile.WriteFileAtomic(path, []byte(plist))
}
