package watchdog

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// startExitWordOwner starts an owner helper and returns the fd under which
// it holds its exit word.
func startExitWordOwner(t *testing.T) (*exec.Cmd, <-chan struct{}, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+helperExitWordOwner)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	done := startWaited(t, cmd)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the owner helper said nothing: %v", err)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "word "))
	if err != nil {
		t.Fatalf("the owner helper said %q", line)
	}
	return cmd, done, n
}

// reopenFD opens what fd n of pid is (its memfd), as a new fd of ours: the
// word as a shim gets it.
func reopenFD(t *testing.T, pid, n int) int {
	t.Helper()
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/fd/"+strconv.Itoa(n), unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

// isOpen reports whether fd is open in this process.
func isOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}

func TestExitWordTellsTheOwnersExit(t *testing.T) {
	owner, done, n := startExitWordOwner(t)
	fd := reopenFD(t, owner.Process.Pid, n)
	w, err := openExitWord(fd, owner.Process.Pid)
	if err != nil {
		t.Fatalf("openExitWord: %v", err)
	}
	defer w.close()
	if isOpen(fd) {
		t.Error("openExitWord left its fd open: a backend would inherit it")
	}
	// A second waiter on the same word, as a second shim of the owner is:
	// the kernel wakes one, which must wake the other.
	second, err := openExitWord(reopenFD(t, owner.Process.Pid, n), owner.Process.Pid)
	if err != nil {
		t.Fatalf("openExitWord, second: %v", err)
	}
	defer second.close()
	results := make(chan bool, 2)
	for _, ew := range []*exitWord{w, second} {
		go func() { results <- ew.wait(context.Background()) }()
	}
	select {
	case <-results:
		t.Fatal("wait returned while the owner lives")
	case <-time.After(200 * time.Millisecond):
	}
	if err := owner.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		select {
		case ok := <-results:
			if !ok {
				t.Fatal("wait returned false after the owner was killed")
			}
		case <-time.After(helperWait):
			t.Fatalf("waiter %d never heard of the owner's exit", i+1)
		}
	}
	<-done
}

func TestExitWordWaitEndsWithItsContext(t *testing.T) {
	owner, _, n := startExitWordOwner(t)
	w, err := openExitWord(reopenFD(t, owner.Process.Pid, n), owner.Process.Pid)
	if err != nil {
		t.Fatalf("openExitWord: %v", err)
	}
	defer w.close()
	// Cancelled before and while waiting: the lost-wakeup window of a
	// cancel that lands just before the waiter sleeps is what the repeated
	// wake covers.
	for i := 0; i < 50; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan bool, 1)
		go func() { got <- w.wait(ctx) }()
		if i%2 == 1 {
			time.Sleep(time.Millisecond)
		}
		cancel()
		select {
		case ok := <-got:
			if ok {
				t.Fatal("wait said the owner exited; it lives")
			}
		case <-time.After(helperWait):
			t.Fatalf("round %d: wait did not end with its context", i)
		}
	}
}

func TestExitWordRefusesWhatIsNotItsOwners(t *testing.T) {
	owner, _, n := startExitWordOwner(t)
	if _, err := openExitWord(reopenFD(t, owner.Process.Pid, n), os.Getpid()); err == nil {
		t.Error("a word held by another process's thread was taken for ours")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	pfd, err := unix.Dup(int(r.Fd()))
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openExitWord(pfd, owner.Process.Pid); err == nil {
		t.Error("a pipe was taken for an exit word")
	}
	if isOpen(pfd) {
		t.Error("a refused fd was left open")
	}
}
