package proc

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/windows"
)

// osHandle is a process handle. While it is open Windows will not reuse the
// PID, so a check made after opening stays true for the handle's lifetime.
type osHandle struct{ h windows.Handle }

const processAccess = windows.PROCESS_TERMINATE | windows.SYNCHRONIZE | windows.PROCESS_QUERY_LIMITED_INFORMATION

func openHandle(pid int) (osHandle, error) {
	h, err := windows.OpenProcess(processAccess, false, uint32(pid))
	if err != nil {
		if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
			return osHandle{}, fmt.Errorf("%w: pid %d", ErrNotFound, pid)
		}
		return osHandle{}, fmt.Errorf("proc: OpenProcess %d: %w", pid, err)
	}
	return osHandle{h: h}, nil
}

// signal maps SIGKILL to TerminateProcess. SIGTERM has no equivalent for an
// arbitrary process: a console control event sent to a PID that does not
// lead a console group may reach every process on the console, so it is
// only sent through SignalConsoleGroup, to groups we created.
func (h osHandle) signal(id Identity, sig syscall.Signal) error {
	if h.exited(id) {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	var err error
	switch sig {
	case syscall.SIGKILL:
		err = windows.TerminateProcess(h.h, 1)
	case syscall.SIGTERM, syscall.SIGINT:
		return ErrNoGracefulStop
	default:
		return fmt.Errorf("proc: signal %v not supported on windows", sig)
	}
	if err != nil {
		return fmt.Errorf("proc: signal %v to %s: %w", sig, id, err)
	}
	return nil
}

func (h osHandle) exited(Identity) bool {
	ev, err := windows.WaitForSingleObject(h.h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}

func (h osHandle) wait(ctx context.Context, _ Identity) bool {
	for {
		ms := uint32(50)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < 50*time.Millisecond {
			ms = uint32(max(time.Until(dl), 0).Milliseconds())
		}
		ev, err := windows.WaitForSingleObject(h.h, ms)
		if err == nil && ev == windows.WAIT_OBJECT_0 {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
	}
}

func (h osHandle) close() error { return windows.CloseHandle(h.h) }
