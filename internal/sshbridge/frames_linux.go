package sshbridge

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"hermes-desktop/contract/muxwire"
)

// frameWriter writes frames to one connection for several writers (ssh's
// stdout and stderr copiers, then the exit status).
type frameWriter struct {
	c io.Writer

	mu     sync.Mutex // guards c's writes and failed
	failed bool       // a write failed: the peer is gone, the rest is dropped
}

// frame writes one frame; after a failed write it drops everything, so a
// writer is never blocked by a peer that is gone (its reader notices that).
func (w *frameWriter) frame(kind byte, p []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed {
		return nil
	}
	if err := muxwire.WriteFrame(w.c, kind, p); err != nil {
		w.failed = true
		return fmt.Errorf("sshbridge: write frame: %w", err)
	}
	return nil
}

// stream is an io.Writer that frames what it is given as kind.
func (w *frameWriter) stream(kind byte) io.Writer { return streamWriter{w, kind} }

type streamWriter struct {
	w    *frameWriter
	kind byte
}

// Write frames p in chunks; it never fails (see frame).
func (s streamWriter) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		n := min(len(rest), chunk)
		_ = s.w.frame(s.kind, rest[:n])
		rest = rest[n:]
	}
	return len(p), nil
}

// exit writes the last frame, how ssh ended.
func (w *frameWriter) exit(e muxwire.Exit) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("sshbridge: exit: %w", err)
	}
	return w.frame(muxwire.FrameExit, b)
}
