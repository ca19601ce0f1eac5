package control

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// errPipeTaken means someone listens on the control pipe already. Under
// the single-instance lock Listen's caller holds, that is no instance of
// ours.
var errPipeTaken = errors.New("someone listens on it already")

// listen opens the control pipe name, according to what is there:
//   - nothing: create the pipe's first instance (FILE_FLAG_FIRST_PIPE_INSTANCE,
//     so that a pipe created meanwhile fails rather than being joined);
//   - an instance waiting for a client: refuse. Windows would refuse a first
//     instance anyway; Wine 8 ignores that flag, and this says why;
//   - instances, all connected: a predecessor that stopped listening still
//     answers requests (a handoff's, which waits for us to serve), and the
//     pipe lives until they end. Join it, as one more instance, once its
//     owner shows that it is ours and not a squatter's.
func listen(name string) (net.Listener, error) {
	sa, err := pipeSecurity()
	if err != nil {
		return nil, err
	}
	state, err := settledState(name)
	if err != nil {
		return nil, err
	}
	if state == pipeListening {
		return nil, fmt.Errorf("control: listen on %s: %w", name, errPipeTaken)
	}
	h, err := createInstance(name, state == pipeAbsent, sa)
	if err != nil {
		return nil, err
	}
	if err := checkOwner(h, name); err != nil {
		_ = windows.CloseHandle(h)
		return nil, err
	}
	return &pipeListener{name: name, sa: sa, next: h}, nil
}

// pipeListener is a net.Listener on a named pipe. A pipe has no listening
// socket: each instance serves one client, so the listener keeps one
// instance waiting (next) and creates another as soon as a client takes
// it. The name exists as long as the listener does: a client that comes
// between two instances finds the pipe busy and retries (go-winio's
// dialer does), never gone.
type pipeListener struct {
	name string
	sa   *windows.SecurityAttributes

	mu        sync.Mutex
	next      windows.Handle     // the instance waiting for a client, 0 if none; guarded by mu
	ov        windows.Overlapped // next's ConnectNamedPipe, which the kernel completes; set under mu by Accept
	accepting chan struct{}      // non-nil while Accept owns next, closed when it lets go; guarded by mu
	closed    bool               // guarded by mu
}

// settleWait bounds how long a waiting instance may take to go once a
// predecessor closed it: Wine 8 reports a just-closed instance as waiting
// for a client now and then (1 in about 40 handoffs in the lane).
const settleWait = 250 * time.Millisecond

// settledState is statePipe, asked again for a short while when it finds an
// instance waiting: a predecessor's may be on its way out. One that stays
// is someone else's.
func settledState(name string) (pipeState, error) {
	deadline := time.Now().Add(settleWait)
	for {
		state, err := statePipe(name)
		if err != nil || state != pipeListening || time.Now().After(deadline) {
			return state, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Accept waits for a client and returns its end of the pipe. It must not
// be called concurrently (Serve is its only caller); Close ends it with
// net.ErrClosed.
func (l *pipeListener) Accept() (net.Conn, error) {
	h, err := l.connect()
	if err != nil {
		return nil, err
	}
	// From here on go-winio does the I/O, through its completion port and
	// with deadlines.
	rwc, err := winio.NewOpenFile(h)
	if err != nil {
		_ = windows.CloseHandle(h)
		return nil, fmt.Errorf("control: accept on %s: %w", l.name, err)
	}
	f, ok := rwc.(pipeFile)
	if !ok {
		rwc.Close()
		return nil, fmt.Errorf("control: accept on %s: go-winio's %T has no deadlines", l.name, rwc)
	}
	return &pipeConn{pipeFile: f, name: l.name}, nil
}

// connect waits until a client connects to the waiting instance and
// returns that instance, with a new one waiting in its place.
func (l *pipeListener) connect() (windows.Handle, error) {
	event, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return 0, fmt.Errorf("control: accept on %s: %w", l.name, err)
	}
	defer windows.CloseHandle(event)
	for {
		h, pending, err := l.startConnect(event)
		if h == 0 {
			return 0, err
		}
		if pending {
			var n uint32
			err = windows.GetOverlappedResult(h, &l.ov, &n, true)
		}
		if h, err = l.endConnect(h, err); !errors.Is(err, windows.ERROR_NO_DATA) {
			return h, err
		}
	}
}

// startConnect makes sure an instance waits and starts its
// ConnectNamedPipe. It returns that instance, now Accept's until
// endConnect, and whether the connect is pending; or 0 and why not.
func (l *pipeListener) startConnect(event windows.Handle) (h windows.Handle, pending bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, false, net.ErrClosed
	}
	if l.next == 0 {
		if l.next, err = createInstance(l.name, false, l.sa); err != nil {
			return 0, false, err
		}
	}
	l.accepting = make(chan struct{})
	l.ov = windows.Overlapped{HEvent: event}
	err = windows.ConnectNamedPipe(l.next, &l.ov)
	switch {
	case errors.Is(err, windows.ERROR_IO_PENDING):
		return l.next, true, nil
	case errors.Is(err, windows.ERROR_PIPE_CONNECTED): // the client came before the call
		return l.next, false, nil
	}
	return l.next, false, err
}

// endConnect takes the outcome of h's connect. Connected: a new instance
// takes h's place, and h is returned. ERROR_NO_DATA (the client came and
// went already) is returned as is, h waiting again.
func (l *pipeListener) endConnect(h windows.Handle, err error) (windows.Handle, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.accepting)
	l.accepting = nil
	if l.closed { // Close left h to us: it may have been waited on
		_ = windows.CloseHandle(h)
		l.next = 0
		return 0, net.ErrClosed
	}
	if err != nil {
		_ = windows.DisconnectNamedPipe(h) // back to waiting for a client
		if errors.Is(err, windows.ERROR_NO_DATA) {
			return 0, err
		}
		return 0, fmt.Errorf("control: accept on %s: %w", l.name, err)
	}
	// A new instance right away, so that the name never lapses; if it
	// cannot be made, the next Accept tries again and says why.
	l.next = 0
	if next, err := createInstance(l.name, false, l.sa); err == nil {
		l.next = next
	}
	return h, nil
}

// Close closes the waiting instance, whether or not Accept waits on it,
// and returns once it is closed: a successor may look for it right after.
// The connections accepted stay open.
func (l *pipeListener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return net.ErrClosed
	}
	l.closed = true
	accepting := l.accepting
	if accepting != nil {
		_ = windows.CancelIoEx(l.next, &l.ov) // Accept closes next once its wait ends
	} else if l.next != 0 {
		_ = windows.CloseHandle(l.next)
		l.next = 0
	}
	l.mu.Unlock()
	if accepting != nil {
		<-accepting
	}
	return nil
}

// Addr returns the pipe's name.
func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.name) }

// pipeFile is what go-winio's NewOpenFile makes of a handle.
type pipeFile interface {
	io.ReadWriteCloser
	SetReadDeadline(time.Time) error
	SetWriteDeadline(time.Time) error
	Fd() uintptr
}

// pipeConn is the server end of a connected pipe instance.
type pipeConn struct {
	pipeFile
	name string
}

func (c *pipeConn) LocalAddr() net.Addr  { return pipeAddr(c.name) }
func (c *pipeConn) RemoteAddr() net.Addr { return pipeAddr(c.name) }

func (c *pipeConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// pipeAddr is a pipe's name as a net.Addr.
type pipeAddr string

func (pipeAddr) Network() string  { return "pipe" }
func (a pipeAddr) String() string { return string(a) }
