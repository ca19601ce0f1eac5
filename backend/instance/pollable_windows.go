package instance

import (
	"os"

	"hermes-desktop/platform/handles"
)

// pollable has nothing to do on Windows.
func pollable(*os.File) {}

// interruptReads ends the output readers' reads before their pipes are
// closed. A Windows pipe read is synchronous and Close does not interrupt
// it: after a handoff, our reader would go on taking lines that are the
// successor's (handles.InterruptRead cancels it). A cancelled read ends
// its reader (logs.ReadLines returns on any error).
func interruptReads(o *output) {
	done := make(chan struct{})
	go func() { o.readers.Wait(); close(done) }() // ends with the readers
	handles.InterruptRead(done, o.outR, o.errR)
}
