// Package muxwire is the protocol inside a remote host's one ssh session
// (DESIGN "Remote backends (SSH)"): after the bootstrap has checked (and
// if need be received) the remote core, the core serves a yamux session
// over the session's stdin and stdout (remotemux.MuxMain), the app is its
// client (backend/ssh), and every command, backend channel and forward is
// one yamux stream. Both sides speak it with these names and nothing else.
//
// A stream opens with one Request line (JSON, the app's) and one Reply
// line (JSON, the core's). Then:
//
//   - OpExec: the program is Argv[0] looked up on the core's PATH, or the
//     core's own executable when Argv[0] is Core; it runs in a process
//     group of its own, without a shell, with the core's environment.
//     The Reply carries its PID (or the Error: not found, not started).
//     Then frames both ways (WriteFrame/ReadFrame). App to core:
//     FrameStdin (data; an empty one closes the command's stdin) and
//     FrameKill (end the command's process group now: TERM, then KILL
//     after a grace). Core to app: FrameStdout, FrameStderr, and last
//     FrameExit (JSON Exit) once the command has been collected; then the
//     core closes the stream. A command with a timeout is killed when it
//     ends (Exit.TimedOut); the stream's end (the app's Close, a reset)
//     or the session's end kills a command with a timeout and closes the
//     stdin of one without (a backend's channel, whose stdin is its
//     lifeline); so the app keeps a Run's stream open until FrameExit.
//     Output after the stream's end is read and dropped, never left to
//     block the command.
//   - OpDial: raw bytes both ways to 127.0.0.1:Port or to the unix socket
//     Path, until both sides have closed (each Close half-closes: the
//     other direction goes on). Path is absolute or relative to the
//     remote's $HOME and must lie inside $HOME/.hermes-desktop/ with no
//     ".." and no symlink from .hermes-desktop down; else the Reply's
//     Error. The core dials nothing else.
//
// A Request the core cannot read or serve gets a Reply with the Error and
// the stream is closed; the session goes on serving.
//
// Lines are read byte by byte up to MaxLine, so that nothing after the
// line is read with it.
package muxwire

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol's version, which the core prints before serving
// (Banner) so that the app never speaks it to another one.
const Version = 1

// Banner is the core's first line on the session once it serves the
// protocol: the bootstrap's output ends there and yamux begins after it.
const Banner = "hermes-desktop-mux 1"

// Core as Argv[0] of an OpExec Request means the remote core's own
// executable (the file the bootstrap checked and exec'd), whatever its
// path, so the app never names it.
const Core = "@core"

// Ops a stream opens with.
const (
	OpExec = "exec"
	OpDial = "dial"
)

// Networks of OpDial.
const (
	NetTCP  = "tcp"  // 127.0.0.1:Port on the remote
	NetUnix = "unix" // the unix socket Path on the remote
)

// Request opens a stream.
type Request struct {
	Op string `json:"op"`
	// Argv is the program (looked up on the core's PATH) and its
	// arguments, run without a shell (OpExec).
	Argv []string `json:"argv,omitempty"`
	// TimeoutMS bounds an OpExec command; 0 means none (a long channel).
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// Network, Port and Path are OpDial's target.
	Network string `json:"network,omitempty"`
	Port    int    `json:"port,omitempty"`
	Path    string `json:"path,omitempty"`
}

// Reply answers a Request: Error says why the stream cannot do it (then
// the core closes it); PID is an OpExec command's process on the remote.
type Reply struct {
	Error string `json:"error,omitempty"`
	PID   int    `json:"pid,omitempty"`
}

// Frame kinds of an OpExec stream.
const (
	FrameStdin  byte = 0 // app to core; empty: close stdin
	FrameStdout byte = 1
	FrameStderr byte = 2
	FrameExit   byte = 3 // JSON Exit, the last frame
	FrameKill   byte = 4 // app to core, no payload
)

// Exit is how an OpExec command ended.
type Exit struct {
	// Code is its exit status; -1 with Signal set (its name, "SIGTERM")
	// when a signal ended it.
	Code     int    `json:"code"`
	Signal   string `json:"signal,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
	// Error says why it could not be started or collected.
	Error string `json:"error,omitempty"`
}

// MaxLine bounds a Request or Reply line; MaxFrame a frame's payload.
const (
	MaxLine  = 64 << 10
	MaxFrame = 1 << 20
)

// ErrTooLong means a line or frame is over its bound.
var ErrTooLong = errors.New("muxwire: over the bound")

// WriteRequest writes r as one line.
func WriteRequest(w io.Writer, r Request) error { return writeLine(w, r) }

// ReadRequest reads one Request line.
func ReadRequest(r io.Reader) (Request, error) {
	var q Request
	return q, readLine(r, &q)
}

// WriteReply writes r as one line.
func WriteReply(w io.Writer, r Reply) error { return writeLine(w, r) }

// ReadReply reads one Reply line.
func ReadReply(r io.Reader) (Reply, error) {
	var p Reply
	return p, readLine(r, &p)
}

func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("muxwire: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// readLine reads up to '\n' one byte at a time (the stream's data follows
// the line) and decodes it into v.
func readLine(r io.Reader, v any) error {
	line, err := ReadLineBytes(r, MaxLine)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("muxwire: %q: %w", line, err)
	}
	return nil
}

// ReadLineBytes reads one line (without its '\n') of at most max bytes,
// one byte at a time, so that nothing after it is consumed.
func ReadLineBytes(r io.Reader, max int) ([]byte, error) {
	var line []byte
	var b [1]byte
	for {
		n, err := r.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				return line, nil
			}
			if len(line) >= max {
				return nil, fmt.Errorf("muxwire: a line of over %d bytes: %w", max, ErrTooLong)
			}
			line = append(line, b[0])
			continue
		}
		if err == io.EOF && len(line) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, err
		}
	}
}

// WriteFrame writes one frame: its kind, its length (4 bytes, big
// endian) and p.
func WriteFrame(w io.Writer, kind byte, p []byte) error {
	if len(p) > MaxFrame {
		return fmt.Errorf("muxwire: a frame of %d bytes: %w", len(p), ErrTooLong)
	}
	var h [5]byte
	h[0] = kind
	binary.BigEndian.PutUint32(h[1:], uint32(len(p)))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	if len(p) == 0 {
		return nil
	}
	_, err := w.Write(p)
	return err
}

// ReadFrame reads one frame into buf (grown as needed) and returns its
// kind and payload, which is valid until the next call with buf.
func ReadFrame(r io.Reader, buf []byte) (kind byte, p []byte, err error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > MaxFrame {
		return 0, nil, fmt.Errorf("muxwire: a frame of %d bytes: %w", n, ErrTooLong)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	p = buf[:n]
	if _, err := io.ReadFull(r, p); err != nil {
		return 0, nil, io.ErrUnexpectedEOF
	}
	return h[0], p, nil
}
