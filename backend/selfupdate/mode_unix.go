//go:build unix

package selfupdate

import "hermes-desktop/backend/handoffwire"

// handoffMode: an update keeps the backends running (adopt).
func handoffMode() handoffwire.Mode { return handoffwire.ModeAdopt }
