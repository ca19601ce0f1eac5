//go:build linux

package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// forkLog counts the processes the kernel reports forked (its process
// events connector, CN_PROC: every fork on the machine, as root), so that
// the commands the remote core's mux server runs can be counted: the
// "remote" is this machine, and every command the server runs is a child
// it forks (exec_unix.go), gone again within milliseconds, too soon for a
// /proc scan. Threads are left out (a new thread is a fork event too).
type forkLog struct {
	fd     int
	mu     sync.Mutex
	forks  []fork // guarded by mu; only while armed
	armed  bool   // guarded by mu
	lost   int    // guarded by mu: receive overruns (ENOBUFS): events lost
	stop   chan struct{}
	closed chan struct{}
}

// fork is one new process (its parent's and its own PID), or with
// exec set, the exec of a new program by the process child.
type fork struct {
	parent, child int
	exec          bool
}

// The connector's constants (linux/connector.h, linux/cn_proc.h).
const (
	cnIdxProc         = 1
	cnValProc         = 1
	procCnMcastListen = 1
	procEventFork     = 1
	procEventExec     = 2
	nlHeader          = 16 // struct nlmsghdr
	cnHeader          = 20 // struct cn_msg
	eventHeader       = 16 // what, cpu, timestamp_ns
)

// listenForks subscribes to the kernel's process events; the caller
// closes the log (its reader goroutine ends then).
func listenForks() (*forkLog, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_CONNECTOR)
	if err != nil {
		return nil, fmt.Errorf("proc connector: socket: %w", err)
	}
	// A big buffer: other work on the machine forks too, and an overrun
	// loses events (counted as lost, said in the report).
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 8<<20)
	// A receive timeout, so that the reader sees stop (a close does not
	// wake a blocked recvfrom).
	tv := unix.NsecToTimeval(int64(200 * time.Millisecond))
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: cnIdxProc}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("proc connector: bind: %w", err)
	}
	msg := make([]byte, nlHeader+cnHeader+4)
	le := binary.LittleEndian // this bench runs on the machine's order; Go's linux targets here are little-endian
	le.PutUint32(msg[0:], uint32(len(msg)))
	le.PutUint16(msg[4:], unix.NLMSG_DONE)
	le.PutUint32(msg[12:], uint32(os.Getpid()))
	le.PutUint32(msg[16:], cnIdxProc)
	le.PutUint32(msg[20:], cnValProc)
	le.PutUint16(msg[32:], 4)
	le.PutUint32(msg[36:], procCnMcastListen)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("proc connector: listen: %w", err)
	}
	l := &forkLog{fd: fd, stop: make(chan struct{}), closed: make(chan struct{})}
	go l.read() // ends at Close
	return l, nil
}

// read records fork events while armed, until Close.
func (l *forkLog) read() {
	defer close(l.closed)
	buf := make([]byte, 64<<10)
	for {
		select {
		case <-l.stop:
			return
		default:
		}
		n, _, err := unix.Recvfrom(l.fd, buf, 0)
		if err == unix.ENOBUFS {
			l.mu.Lock()
			l.lost++
			l.mu.Unlock()
			continue
		}
		if err != nil {
			continue // the timeout (EAGAIN), EINTR
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			continue
		}
		for _, m := range msgs {
			l.record(m.Data)
		}
	}
}

// record keeps one fork event of a new process (not a thread), or one
// exec event.
func (l *forkLog) record(d []byte) {
	le := binary.LittleEndian
	if len(d) < cnHeader+eventHeader+16 {
		return
	}
	what, ev := le.Uint32(d[cnHeader:]), d[cnHeader+eventHeader:]
	var f fork
	switch what {
	case procEventFork:
		parentTgid, childPid, childTgid := le.Uint32(ev[4:]), le.Uint32(ev[8:]), le.Uint32(ev[12:])
		if childPid != childTgid {
			return
		}
		f = fork{parent: int(parentTgid), child: int(childPid)}
	case procEventExec:
		f = fork{child: int(le.Uint32(ev[4:])), exec: true}
	default:
		return
	}
	l.mu.Lock()
	if l.armed {
		l.forks = append(l.forks, f)
	}
	l.mu.Unlock()
}

// arm starts recording afresh; mark is where a measurement begins.
func (l *forkLog) arm() {
	l.mu.Lock()
	l.armed, l.forks = true, l.forks[:0]
	l.mu.Unlock()
}

// mark is the number of forks recorded so far.
func (l *forkLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.forks)
}

// childrenOf counts the processes forked by any of parents since mark
// and since the parent's last exec: what it forked while it was still the
// program it replaced (the bootstrap's sh, for the mux server) does not
// count. The kernel delivers events a moment after the fork: it waits
// 100 ms for the last ones first.
func (l *forkLog) childrenOf(parents []int, mark int) int {
	time.Sleep(100 * time.Millisecond)
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, p := range parents {
		from := min(mark, len(l.forks))
		for i, f := range l.forks {
			if f.exec && f.child == p {
				from = max(from, i+1)
			}
		}
		for _, f := range l.forks[from:] {
			if !f.exec && f.parent == p {
				n++
			}
		}
	}
	return n
}

// overruns is how many receive overruns lost events so far.
func (l *forkLog) overruns() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// Close ends the reader and closes the socket.
func (l *forkLog) Close() {
	close(l.stop)
	<-l.closed
	unix.Close(l.fd)
}
