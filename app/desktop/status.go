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
	if len(st.Backends) > 1 {
		return severalLine(st.Backends)
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

// severalLine says what the window's header says of several backends
// (frontend instanceSummary), so the tray and the window never disagree
// ("3 of 4 backends ready" beside "1 of 4 backends failed"): a failure
// first, then all ready, then those under way, then all stopped.
func severalLine(bs []model.BackendStatus) string {
	count := map[model.State]int{}
	for _, b := range bs {
		count[b.State]++
	}
	n := len(bs)
	ready := count[model.StateReady] + count[model.StateExternal]
	busy := count[model.StateStarting] + count[model.StateRestarting]
	switch {
	case count[model.StateFailed] > 0:
		return fmt.Sprintf("%d of %d backends failed", count[model.StateFailed], n)
	case ready == n:
		return fmt.Sprintf("%d backends ready", n)
	case busy > 0:
		verb := "starting"
		if count[model.StateRestarting] > 0 && count[model.StateStarting] == 0 {
			verb = "restarting"
		}
		return fmt.Sprintf("%d of %d ready, %d %s…", ready, n, busy, verb)
	case count[model.StateStopped] == n:
		return fmt.Sprintf("All %d backends stopped", n)
	}
	return fmt.Sprintf("%d of %d backends ready", ready, n)
}
