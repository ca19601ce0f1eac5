//go:build unix

package leakguard

import (
	"time"

	"hermes-desktop/internal/proc"
)

// terminate sends id SIGTERM and returns what SIGKILLs it after grace.
func terminate(id proc.Identity, grace time.Duration, now time.Time) (stopper, error) {
	stop, err := proc.Terminate(id, grace, now)
	if err != nil {
		return nil, err
	}
	return stop, nil
}
