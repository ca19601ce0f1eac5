package sampling

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// On Linux a Ticker is a timerfd the poller waits on, not a Go timer; Stop
// closes it and ends the goroutine that reads it.
func TestTickerIsATimerfdThatStopCloses(t *testing.T) {
	tk := NewTicker(time.Hour)
	if tk.t.f == nil || tk.t.fallback != nil {
		t.Fatal("the ticker fell back to a time.Ticker although timerfd_create works here")
	}
	var fd uintptr // not f.Fd(): that would put the descriptor in blocking mode
	if rc, err := tk.t.f.SyscallConn(); err != nil || rc.Control(func(d uintptr) { fd = d }) != nil {
		t.Fatal("no descriptor behind the ticker's file")
	}
	link, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd)))
	if err != nil || link != "anon_inode:[timerfd]" {
		t.Fatalf("fd %d is %q (%v), want a timerfd", fd, link, err)
	}
	tk.Stop()
	select {
	case <-tk.t.done:
	default:
		t.Fatal("Stop returned before the reading goroutine ended")
	}
	if link, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd))); err == nil && link == "anon_inode:[timerfd]" {
		t.Errorf("fd %d is still a timerfd after Stop", fd)
	}
}
