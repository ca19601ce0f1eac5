package selfupdate

import "hermes-desktop/backend/handoff"

// handoffMode: no adopt mode on Windows (the launcher refuses it: its
// backends live in a kill-on-close job), so an update restarts the
// backends (restart mode).
func handoffMode() handoff.Mode { return handoff.ModeRestart }
