package selfupdate

import (
	"hermes-desktop/backend/control/protocol"
)

// handoffMode: an update keeps the backends running (adopt), on every OS:
// on Windows the successor is handed the launcher's job and each tree's
// with the lifelines (backend/handoff), so the old launcher's exit ends
// none of them.
func handoffMode() protocol.HandoffMode { return protocol.HandoffAdopt }
