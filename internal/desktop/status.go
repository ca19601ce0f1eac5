package desktop

import (
	"fmt"

	"hermes-desktop/backend"
)

// StatusLine is the tray menu's first (disabled) line: the state of the
// first backend in a few words.
func StatusLine(st backend.Status) string {
	if len(st.Backends) == 0 {
		return "No backend"
	}
	b := st.Backends[0]
	switch b.State {
	case backend.StateReady:
		return fmt.Sprintf("Backend ready on :%d", b.Port)
	case backend.StateStarting:
		return "Backend starting…"
	case backend.StateRestarting:
		return fmt.Sprintf("Backend restarting (%d so far)…", b.Restarts)
	case backend.StateFailed:
		return "Backend failed: open Hermes for details"
	}
	return "Backend stopped"
}
