package sampling

import (
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// osTicker is a timerfd read by one goroutine, which the runtime parks in
// its network poller between ticks; the goroutine is the ticker's and ends
// when stop closes the file. Without a timerfd (the descriptor limit
// reached, a seccomp filter) it is a time.Ticker.
type osTicker struct {
	f        *os.File
	done     chan struct{} // closed when the reading goroutine has returned
	fallback *time.Ticker  // instead of f, when there is no timerfd
	stopOnce sync.Once
}

func startTicker(d time.Duration) (<-chan time.Time, *osTicker) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err == nil {
		if err = armTimerfd(fd, d); err != nil {
			unix.Close(fd)
		}
	}
	var rc syscall.RawConn
	var f *os.File
	if err == nil {
		f = os.NewFile(uintptr(fd), "timerfd")
		if rc, err = f.SyscallConn(); err != nil {
			f.Close()
		}
	}
	if err != nil {
		tt := time.NewTicker(d)
		return tt.C, &osTicker{fallback: tt}
	}
	c := make(chan time.Time, 1)
	t := &osTicker{f: f, done: make(chan struct{})}
	go readTicks(rc, c, t.done)
	return c, t
}

// readTicks sends a tick on c for each expiry of the timerfd until the file
// is closed. The read is a raw system call: the descriptor is non-blocking,
// so it cannot stall, and a plain one would wake the runtime's sysmon
// thread at every tick, the very wakeup the timerfd is there to avoid.
func readTicks(rc syscall.RawConn, c chan<- time.Time, done chan<- struct{}) {
	defer close(done)
	var expirations [8]byte
	for {
		var readErr syscall.Errno
		err := rc.Read(func(fd uintptr) bool {
			for {
				_, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&expirations[0])), uintptr(len(expirations)))
				switch e {
				case unix.EINTR:
					continue
				case unix.EAGAIN:
					return false // not due yet: park in the poller
				}
				readErr = e
				return true
			}
		})
		if err != nil || readErr != 0 {
			return // closed by stop, or a timerfd that broke: no more ticks
		}
		select {
		case c <- time.Now():
		default: // the receiver has not taken the last one yet
		}
	}
}

func armTimerfd(fd int, d time.Duration) error {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	if err := unix.TimerfdSettime(fd, 0, &unix.ItimerSpec{Interval: ts, Value: ts}, nil); err != nil {
		return os.NewSyscallError("timerfd_settime", err)
	}
	return nil
}

func (t *osTicker) reset(d time.Duration) {
	if t.fallback != nil {
		t.fallback.Reset(d)
		return
	}
	if rc, err := t.f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = armTimerfd(int(fd), d) }) // fails only once stopped
	}
}

func (t *osTicker) stop() {
	if t.fallback != nil {
		t.fallback.Stop()
		return
	}
	t.stopOnce.Do(func() { _ = t.f.Close() }) // wakes the reader, which returns
	<-t.done
}
