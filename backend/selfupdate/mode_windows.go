package selfupdate

import (
	"hermes-desktop/backend/control/protocol"
)

// handoffMode: no adopt mode on Windows (the launcher refuses it: its
// backends live in a kill-on-close job), so an update restarts the
// backends (restart mode).
func handoffMode() protocol.HandoffMode { return protocol.HandoffRestart }
