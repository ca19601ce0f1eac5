//go:build unix

package update

import "syscall"

// diskFullErrnos are how Unix reports a full disk: ENOSPC, or EDQUOT when
// the user's quota is full.
var diskFullErrnos = []error{syscall.ENOSPC, syscall.EDQUOT}
