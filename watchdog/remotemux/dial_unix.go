//go:build unix

package remotemux

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/yamux"

	"hermes-desktop/contract/muxwire"
)

// StateDir is the folder under $HOME that holds every unix socket an
// OpDial may reach.
const StateDir = ".hermes-desktop"

// serveDial connects q's target and pipes bytes both ways until both
// directions end, or the session does.
func serveDial(st *yamux.Stream, q muxwire.Request, gone <-chan struct{}) {
	conn, err := dialTarget(q)
	if err != nil {
		_ = muxwire.WriteReply(st, muxwire.Reply{Error: err.Error()})
		return
	}
	defer conn.Close()
	if err := muxwire.WriteReply(st, muxwire.Reply{}); err != nil {
		return
	}
	pipe(st, conn, gone)
}

// dialTarget connects the remote's 127.0.0.1:Port, or a unix socket that
// socketPath allows.
func dialTarget(q muxwire.Request) (netConn, error) {
	var network, addr string
	switch q.Network {
	case muxwire.NetTCP:
		if q.Port < 1 || q.Port > 65535 {
			return nil, fmt.Errorf("remotemux: dial: port %d out of range", q.Port)
		}
		network, addr = "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(q.Port))
	case muxwire.NetUnix:
		p, err := socketPath(q.Path)
		if err != nil {
			return nil, err
		}
		network, addr = "unix", p
	default:
		return nil, fmt.Errorf("remotemux: dial: unknown network %q", q.Network)
	}
	c, err := net.DialTimeout(network, addr, dialTimeout)
	if err != nil {
		return nil, fmt.Errorf("remotemux: dial %s %s: %w", network, addr, err)
	}
	return c.(netConn), nil
}

// ErrOutsideState refuses a unix socket path outside $HOME/.hermes-desktop
// or one that goes through a symlink or "..".
var ErrOutsideState = errors.New("remotemux: a unix socket is dialled only inside ~/" + StateDir)

// socketPath returns the unix socket path p (absolute, or relative to
// $HOME) when it lies inside $HOME/.hermes-desktop with no ".." and no
// symlink from .hermes-desktop down: another account's socket, or one a
// link points elsewhere, is never dialled for the app.
func socketPath(p string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("remotemux: dial %q: %w", p, err)
	}
	if p == "" || slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "..") {
		return "", fmt.Errorf("%w: %q", ErrOutsideState, p)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(home, p)
	}
	root := filepath.Join(filepath.Clean(home), StateDir)
	p = filepath.Clean(p)
	rest, ok := strings.CutPrefix(p, root+string(filepath.Separator))
	if !ok || rest == "" {
		return "", fmt.Errorf("%w: %q", ErrOutsideState, p)
	}
	dir := root
	for _, name := range append([]string{""}, strings.Split(rest, string(filepath.Separator))...) {
		dir = filepath.Join(dir, name)
		fi, err := os.Lstat(dir)
		if err != nil {
			return "", fmt.Errorf("remotemux: dial %q: %w", p, err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return "", fmt.Errorf("%w: %q is a symlink", ErrOutsideState, dir)
		}
	}
	return p, nil
}

// pipe copies st to conn and conn to st. Each direction's end half-closes
// the other side; the session's end closes conn, which ends both.
func pipe(st *yamux.Stream, conn netConn, gone <-chan struct{}) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // ends at the stream's EOF or error
		defer wg.Done()
		_, _ = io.Copy(conn, st)
		_ = conn.CloseWrite()
	}()
	go func() { // ends at conn's EOF or error (conn.Close below)
		defer wg.Done()
		_, _ = io.Copy(st, conn)
		_ = st.Close()
	}()
	both := make(chan struct{})
	go func() { // ends when both copies have
		wg.Wait()
		close(both)
	}()
	select {
	case <-both:
	case <-gone:
		_ = conn.Close()
		<-both
	}
}
