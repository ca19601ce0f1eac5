//go:build unix

package selfupdate

import (
	"hermes-desktop/backend/control/protocol"
)

// handoffMode: an update keeps the backends running (adopt).
func handoffMode() protocol.HandoffMode { return protocol.HandoffAdopt }
