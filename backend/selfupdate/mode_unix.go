//go:build unix

package selfupdate

import "hermes-desktop/backend/handoff"

// handoffMode: an update keeps the backends running (adopt).
func handoffMode() handoff.Mode { return handoff.ModeAdopt }
