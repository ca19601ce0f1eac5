package ssh

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/yamux"

	"hermes-desktop/backend/transport"
	"hermes-desktop/contract/muxwire"
)

// killGrace is the remote core's time between SIGTERM and SIGKILL of a
// command it ends (muxwire: FrameKill, the timeout); we wait that long
// again to hear of it.
const killGrace = 2 * time.Second

// dialTimeout bounds opening one stream for a forward's connection,
// reconnecting the host included.
const dialTimeout = 30 * time.Second

// open opens a stream on the session (connecting first if need be) and
// sends req; ctx bounds that and the core's Reply.
func (h *Host) open(ctx context.Context, req muxwire.Request) (*yamux.Stream, error) {
	if err := h.Connect(ctx); err != nil {
		return nil, err
	}
	l, err := h.current()
	if err != nil {
		return nil, err
	}
	st, err := l.mux.OpenStream()
	if err != nil {
		return nil, fmt.Errorf("%w: open a stream to %s: %w", ErrUnreachable, h.opts.Destination, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = st.SetDeadline(time.Now()) })
	err = muxwire.WriteRequest(st, req)
	var rep muxwire.Reply
	if err == nil {
		rep, err = muxwire.ReadReply(st)
	}
	if !stop() {
		err = errors.Join(ctx.Err(), err)
		_ = st.SetDeadline(time.Time{})
	}
	switch {
	case err != nil:
		st.Close()
		return nil, fmt.Errorf("ssh: %s on %s: %w", req.Op, h.opts.Destination, err)
	case rep.Error != "":
		st.Close()
		return nil, fmt.Errorf("ssh: %s on %s: %w: %s", req.Op, h.opts.Destination, transport.ErrRefusedThere, rep.Error)
	}
	return st, nil
}

// Run runs argv on the host over the session, with stdin as its standard
// input (nil: none, the command reads EOF; read to its end), and returns
// its stdout. The remote core kills the command's process group when
// timeout ends (not only our side's wait: Hermes #110478), and Run returns
// an error wrapping transport.ErrTimeout. If ctx ends first, the command is
// killed there too. A failed command's error wraps a *transport.ExitError.
// argv[0] muxwire.Core is the remote core itself.
func (h *Host) Run(ctx context.Context, timeout time.Duration, stdin io.Reader, argv ...string) ([]byte, error) {
	if timeout <= 0 || len(argv) == 0 {
		return nil, errors.New("ssh: run needs a command and a timeout")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+2*killGrace+dialTimeout)
	defer cancel()
	st, err := h.open(ctx, muxwire.Request{Op: muxwire.OpExec, Argv: argv, TimeoutMS: max(1, timeout.Milliseconds())})
	if err != nil {
		return nil, err
	}
	x := &execStream{st: st}
	fed := make(chan struct{})
	go func() { defer close(fed); x.feed(stdin) }() // ends at stdin's EOF or the stream's end
	stop := context.AfterFunc(ctx, x.kill)
	var stdout bytes.Buffer
	stderr := transport.NewTail(8 << 10)
	exit, err := x.collect(&stdout, stderr)
	stop()
	st.Close()
	<-fed
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return stdout.Bytes(), fmt.Errorf("ssh: run %q on %s: %w", argv[0], h.opts.Destination, err)
	}
	if err := exitError(exit); err != nil {
		return stdout.Bytes(), fmt.Errorf("ssh: run %q on %s: %w: %s", argv[0], h.opts.Destination, err, lastLine(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// exitError is how a command ended, as an error; nil for exit status 0.
func exitError(e muxwire.Exit) error {
	switch {
	case e.TimedOut:
		return transport.ErrTimeout
	case e.Error != "":
		return fmt.Errorf("%w (%s)", &transport.ExitError{Code: 127}, e.Error)
	case e.Code != 0 || e.Signal != "":
		return &transport.ExitError{Code: e.Code, Signal: e.Signal}
	}
	return nil
}

// Start runs argv on the host over the session without a timeout; ctx
// bounds the start only. The command's stdin closes when the channel ends
// (Kill, Close of the Host, the session's end): its lifeline.
func (h *Host) Start(ctx context.Context, argv ...string) (*transport.Channel, error) {
	if len(argv) == 0 {
		return nil, errors.New("ssh: start needs a command")
	}
	st, err := h.open(ctx, muxwire.Request{Op: muxwire.OpExec, Argv: argv})
	if err != nil {
		return nil, err
	}
	x := &execStream{st: st}
	out, w := io.Pipe()
	stderr := transport.NewTail(8 << 10)
	done := make(chan struct{})
	var exit muxwire.Exit
	var rerr error
	go func() { // owned by the channel: ends with the stream; Wait waits for it
		defer close(done)
		exit, rerr = x.collect(w, stderr)
		w.Close()
	}()
	wait := func() error {
		<-done
		st.Close()
		if rerr != nil {
			return fmt.Errorf("ssh: channel %q on %s: %w", argv[0], h.opts.Destination, rerr)
		}
		if err := exitError(exit); err != nil {
			return fmt.Errorf("ssh: channel %q on %s: %w: %s", argv[0], h.opts.Destination, err, lastLine(stderr.String()))
		}
		return nil
	}
	kill := func() error {
		x.kill()
		// The core answers FrameKill with the command's exit within its
		// kill grace; past that the stream is given up.
		return st.SetReadDeadline(time.Now().Add(2*killGrace + time.Second))
	}
	return transport.NewChannel(stdinWriter{x}, out, wait, kill), nil
}

// execStream is an OpExec stream; writes (stdin, kill) are serialized.
type execStream struct {
	st  *yamux.Stream
	wmu sync.Mutex
}

func (x *execStream) frame(kind byte, p []byte) error {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	return muxwire.WriteFrame(x.st, kind, p)
}

// kill asks the core to end the command now.
func (x *execStream) kill() { _ = x.frame(muxwire.FrameKill, nil) }

// feed sends r as the command's stdin, then its end.
func (x *execStream) feed(r io.Reader) {
	if r != nil {
		if _, err := io.Copy(stdinWriter{x}, r); err != nil {
			return
		}
	}
	_ = x.frame(muxwire.FrameStdin, nil)
}

// collect reads frames until the command's exit: stdout to out, stderr to
// errs.
func (x *execStream) collect(out, errs io.Writer) (muxwire.Exit, error) {
	var buf []byte
	for {
		kind, p, err := muxwire.ReadFrame(x.st, buf)
		if err != nil {
			return muxwire.Exit{}, fmt.Errorf("the stream ended before the command's exit: %w", err)
		}
		buf = p[:0]
		switch kind {
		case muxwire.FrameStdout:
			if _, err := out.Write(p); err != nil {
				return muxwire.Exit{}, err
			}
		case muxwire.FrameStderr:
			_, _ = errs.Write(p)
		case muxwire.FrameExit:
			var e muxwire.Exit
			if err := json.Unmarshal(p, &e); err != nil {
				return e, fmt.Errorf("the command's exit %q: %w", p, err)
			}
			return e, nil
		}
	}
}

// stdinWriter writes a command's stdin as frames; Close ends it.
type stdinWriter struct{ x *execStream }

func (w stdinWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		c := p[:min(len(p), muxwire.MaxFrame)]
		if len(c) == 0 {
			break
		}
		if err := w.x.frame(muxwire.FrameStdin, c); err != nil {
			return n, err
		}
		n += len(c)
		p = p[len(c):]
	}
	return n, nil
}

func (w stdinWriter) Close() error { return w.x.frame(muxwire.FrameStdin, nil) }

// Dial opens one stream to to on the host.
func (h *Host) Dial(ctx context.Context, to transport.Target) (net.Conn, error) {
	if err := to.Check(); err != nil {
		return nil, err
	}
	req := muxwire.Request{Op: muxwire.OpDial, Network: muxwire.NetTCP, Port: to.Port}
	if to.Socket != "" {
		req = muxwire.Request{Op: muxwire.OpDial, Network: muxwire.NetUnix, Path: to.Socket}
	}
	st, err := h.open(ctx, req)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Forward serves 127.0.0.1:local here, each connection a stream to to on
// the host. The listener stays through a reconnect (its next connections
// go over the new session) until Unforward or Close. A local port already
// taken is an error (the caller tries another).
func (h *Host) Forward(ctx context.Context, local int, to transport.Target) error {
	if err := to.Check(); err != nil {
		return err
	}
	if err := h.Connect(ctx); err != nil {
		return err
	}
	if err := h.forwards.Listen(local, h.dialer(to)); err != nil {
		return fmt.Errorf("ssh: forward %d -> %v on %s: %w", local, to, h.opts.Destination, err)
	}
	return nil
}

// dialer is a forward's dial: one stream to to, bounded by dialTimeout.
func (h *Host) dialer(to transport.Target) func(context.Context) (net.Conn, error) {
	return func(ctx context.Context) (net.Conn, error) {
		ctx, cancel := context.WithTimeout(ctx, dialTimeout)
		defer cancel()
		return h.Dial(ctx, to)
	}
}

// Unforward ends the Forward of local and its connections.
func (h *Host) Unforward(_ context.Context, local int) error {
	if err := h.forwards.Remove(local); err != nil {
		return fmt.Errorf("ssh: %w", err)
	}
	return nil
}

// The Host is a transport.Transport.
var _ transport.Transport = (*Host)(nil)
