package instance

import (
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// pollable has nothing to do on Windows.
func pollable(*os.File) {}

// interruptReads ends the output readers' reads before their pipes are
// closed. A Windows pipe read is synchronous and Close does not interrupt
// it (the handle stays open until the read returns): after a handoff, our
// reader would go on taking lines that are the successor's. CancelIoEx
// cancels a read in progress; a reader between two reads is caught on the
// next round (as watchdog's interruptRead). A cancelled read ends its
// reader (logs.ReadLines returns on any error).
func interruptReads(o *output) {
	done := make(chan struct{})
	go func() { o.readers.Wait(); close(done) }() // ends with the readers
	for {
		_ = windows.CancelIoEx(windows.Handle(o.outR.Fd()), nil)
		_ = windows.CancelIoEx(windows.Handle(o.errR.Fd()), nil)
		select {
		case <-done:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}
