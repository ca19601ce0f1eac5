package handles

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// Private keeps handle h from every child we start later: not
// inheritable. (Go's StartProcess passes a handle list, but a process
// started any other way, by a DLL say, with bInheritHandles would
// otherwise receive it.)
func Private(h uintptr) error {
	if err := windows.SetHandleInformation(windows.Handle(h), windows.HANDLE_FLAG_INHERIT, 0); err != nil {
		return fmt.Errorf("handles: handle %d: make it non-inheritable: %w", h, err)
	}
	return nil
}

// Take wraps a handle our parent passed down (an inherited handle keeps
// its value) as a file of ours, private.
func Take(h uintptr, name string) (*os.File, error) {
	if err := Private(h); err != nil {
		return nil, err
	}
	return os.NewFile(h, name), nil
}

// InterruptRead ends the reads on fs and returns once returned is closed
// (the readers have returned). A file that takes a deadline is woken by
// one in the past; a pipe opened without overlapped I/O (os.Pipe's, an
// inherited one's) ignores deadlines, and Close does not interrupt its
// read either (the handle stays open until the read returns), so the read
// in progress is cancelled with CancelIoEx, again every 10 ms: a reader
// between two reads is caught on its next one.
func InterruptRead(returned <-chan struct{}, fs ...*os.File) {
	var blocking []*os.File
	for _, f := range fs {
		if f.SetReadDeadline(time.Now()) != nil {
			blocking = append(blocking, f)
		}
	}
	if len(blocking) == 0 {
		return
	}
	for {
		for _, f := range blocking {
			_ = windows.CancelIoEx(windows.Handle(f.Fd()), nil)
		}
		select {
		case <-returned:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}
