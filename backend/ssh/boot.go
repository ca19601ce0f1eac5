package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/yamux"

	"hermes-desktop/contract/muxwire"
)

// maxPreamble bounds what may come before the Banner once the bootstrap
// is done (lines a login script printed, say), quoted in the error.
const maxPreamble = 4 << 10

// boot runs the bootstrap over session s, reads the core's Banner and
// starts the multiplexer's client over the session. The first byte from
// the host must come within ConnectTimeout (ssh authenticated, the
// bootstrap runs), the rest within BootTimeout. On failure s is ended and
// the error says why, from ssh's stderr when ssh gave up.
func (h *Host) boot(ctx context.Context, s *session) (*yamux.Session, error) {
	ctx, cancel := context.WithTimeout(ctx, h.opts.ConnectTimeout+h.opts.BootTimeout)
	defer cancel()
	first := &firstByte{r: s, got: make(chan struct{})}
	authed := time.AfterFunc(h.opts.ConnectTimeout, func() {
		select {
		case <-first.got:
		default:
			cancel()
		}
	})
	defer authed.Stop()
	stop := context.AfterFunc(ctx, s.kill) // unblocks the reads below
	err := h.opts.Boot.Run(ctx, first, s)
	if err == nil {
		err = readBanner(s)
	}
	stopped := stop()
	if err == nil {
		var mux *yamux.Session
		if mux, err = yamux.Client(s, h.muxConfig(s)); err == nil {
			return mux, nil
		}
	}
	s.end() // and its stderr is complete
	return nil, h.bootError(err, s, !stopped, first)
}

// bootError says why the boot failed: ssh's own words when it ended the
// session (authentication, host key, network), the deadline when it came,
// else the bootstrap's error with ssh's last line.
func (h *Host) bootError(err error, s *session, timedOut bool, first *firstByte) error {
	stderr := s.sshStderr()
	if timedOut && h.life.Err() == nil {
		if !first.seen() {
			return fmt.Errorf("%w: not connected after %s: %s", ErrUnreachable, h.opts.ConnectTimeout, lastLine(stderr))
		}
		return fmt.Errorf("%w: the bootstrap did not finish within %s", ErrUnreachable, h.opts.BootTimeout)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed) {
		return classify(stderr)
	}
	if last := lastLine(stderr); last != "" {
		return fmt.Errorf("%w (ssh: %s)", err, last)
	}
	return err
}

// readBanner reads lines until the core's Banner, one byte at a time so
// that the multiplexer's first bytes stay unread; anything else first is
// an error quoting it.
func readBanner(r io.Reader) error {
	var before []string
	n := 0
	for {
		line, err := muxwire.ReadLineBytes(r, maxPreamble)
		if err != nil {
			if len(before) > 0 {
				return fmt.Errorf("ssh: the remote core did not start: %q: %w", strings.Join(before, "\n"), err)
			}
			return err
		}
		s := strings.TrimSuffix(string(line), "\r")
		if s == muxwire.Banner {
			if len(before) > 0 {
				return fmt.Errorf("ssh: the remote core printed %q before it served", strings.Join(before, "\n"))
			}
			return nil
		}
		if strings.HasPrefix(s, "hermes-desktop-mux ") {
			return fmt.Errorf("ssh: the remote core speaks %q, this app %q", s, muxwire.Banner)
		}
		before = append(before, s)
		if n += len(line) + 1; n > maxPreamble {
			return fmt.Errorf("ssh: no banner from the remote core after %q", strings.Join(before, "\n"))
		}
	}
}

// muxConfig is the multiplexer's: keepalives at the alive interval (a
// connection gone quiet is seen within the disconnect grace), its log to
// the session's stderr tail (an error quotes its last line).
func (h *Host) muxConfig(s *session) *yamux.Config {
	c := yamux.DefaultConfig()
	c.EnableKeepAlive = true
	c.KeepAliveInterval = h.opts.ServerAliveInterval
	c.ConnectionWriteTimeout = max(10*time.Second, 2*h.opts.ServerAliveInterval)
	c.StreamOpenTimeout = 30 * time.Second
	c.LogOutput = s.stderr
	return c
}

// firstByte tells when its reader gave its first byte.
type firstByte struct {
	r    io.Reader
	got  chan struct{}
	once sync.Once
}

func (f *firstByte) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n > 0 {
		f.once.Do(func() { close(f.got) })
	}
	return n, err
}

func (f *firstByte) seen() bool {
	select {
	case <-f.got:
		return true
	default:
		return false
	}
}
