package desktop

import (
	"fmt"

	"hermes-desktop/backend"
)

// StatusLine is the tray menu's first (disabled) line: the state of the
// backends in a few words.
func StatusLine(st backend.Status) string {
	if len(st.Backends) == 0 {
		return "No backend"
	}
	if n := len(st.Backends); n > 1 {
		ready := 0
		for _, b := range st.Backends {
			if b.State == backend.StateReady || b.State == backend.StateExternal {
				ready++
			}
		}
		return fmt.Sprintf("%d of %d backends ready", ready, n)
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
		return "Backend failed: show the window for details"
	case backend.StateExternal:
		return fmt.Sprintf("Using the Hermes already running on :%d", b.Port)
	}
	return "Backend stopped"
}
