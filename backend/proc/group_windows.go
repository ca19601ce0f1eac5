package proc

import (
	"fmt"
	"syscall"
)

// SignalGroup is not available on Windows: process groups there are console
// groups, and trees are stopped through job objects instead.
func SignalGroup(pgid int, sig syscall.Signal) error {
	return fmt.Errorf("proc: process groups are not signalled on windows (group %d, %v)", pgid, sig)
}
