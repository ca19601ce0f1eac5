//go:build unix

package remotemux

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/hashicorp/yamux"

	"hermes-desktop/contract/muxwire"
)

// MuxMain prints muxwire.Banner, serves a yamux server session over stdin
// and stdout until it ends (EOF, a failed keepalive, a write error), and
// returns once every stream's handler, and so every command's child, is
// done: 0 for a session that ended, 1 when it could not start.
func MuxMain(version string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Notify, not Ignore: an ignored signal stays ignored in the children
	// we exec, a handled one is reset to its default there. sshd may close
	// our stdout before we are done (SIGPIPE on a write) and may hang up.
	quiet := make(chan os.Signal, 1)
	signal.Notify(quiet, syscall.SIGPIPE, syscall.SIGHUP)
	defer signal.Stop(quiet)

	if _, err := io.WriteString(stdout, muxwire.Banner+"\n"); err != nil {
		fmt.Fprintf(stderr, "remotemux %s: banner: %v\n", version, err)
		return 1
	}
	sess, err := yamux.Server(stdio{stdin, stdout}, yamuxConfig(stderr))
	if err != nil {
		fmt.Fprintf(stderr, "remotemux %s: session: %v\n", version, err)
		return 1
	}
	serve(sess)
	return 0
}

// serve accepts streams until the session ends, then closes it (every
// stream with it) and waits for every handler: each ends with its stream
// and, for a command, only after its child is collected.
func serve(sess *yamux.Session) {
	var handlers sync.WaitGroup
	defer handlers.Wait()
	defer sess.Close()
	for {
		st, err := sess.AcceptStream()
		if err != nil {
			return // the session is over (EOF, keepalive, Close)
		}
		handlers.Add(1)
		go func() { // ends with the stream or the session (handle)
			defer handlers.Done()
			handle(st, sess.CloseChan())
		}()
	}
}

// handle reads a stream's Request and serves it; a Request it cannot
// read or serve gets a Reply with the Error, and the session goes on.
func handle(st *yamux.Stream, gone <-chan struct{}) {
	defer st.Close()
	q, err := muxwire.ReadRequest(st)
	if err != nil {
		_ = muxwire.WriteReply(st, muxwire.Reply{Error: fmt.Sprintf("remotemux: request: %v", err)})
		return
	}
	switch q.Op {
	case muxwire.OpExec:
		serveExec(st, q, gone)
	case muxwire.OpDial:
		serveDial(st, q, gone)
	default:
		_ = muxwire.WriteReply(st, muxwire.Reply{Error: fmt.Sprintf("remotemux: unknown op %q", q.Op)})
	}
}

// stdio is the session's connection: the ssh session's stdin and stdout.
// Close closes both where they can be, which ends yamux's reader.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	var errs []error
	if c, ok := s.Reader.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	if c, ok := s.Writer.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// netConn is a dialled target: a TCP or unix connection, both of which
// half-close.
type netConn interface {
	net.Conn
	CloseWrite() error
}
