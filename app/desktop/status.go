package desktop

import (
	"fmt"
	"hermes-desktop/backend/model"
)

// StatusLine is the tray menu's first (disabled) line: the state of the
// backends in a few words.
func StatusLine(st model.Status) string {
	if len(st.Backends) == 0 {
		return "No backend"
	}
	if n := len(st.Backends); n > 1 {
		ready := 0
		for _, b := range st.Backends {
			if b.State == model.StateReady || b.State == model.StateExternal {
				ready++
			}
		}
		return fmt.Sprintf("%d of %d backends ready", ready, n)
	}
	b := st.Backends[0]
	switch b.State {
	case model.StateReady:
		return fmt.Sprintf("Backend ready on :%d", b.Port)
	case model.StateStarting:
		return "Backend starting…"
	case model.StateRestarting:
		return fmt.Sprintf("Backend restarting (%d so far)…", b.Restarts)
	case model.StateFailed:
		return "Backend failed: show the window for details"
	case model.StateExternal:
		return fmt.Sprintf("Using the Hermes already running on :%d", b.Port)
	}
	return "Backend stopped"
}
