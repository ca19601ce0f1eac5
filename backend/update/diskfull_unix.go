//go:build unix

package update

import (
	"errors"
	"syscall"
)

// isDiskFull reports ENOSPC or EDQUOT (full, for this user).
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
