package sshbridge

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"time"

	"hermes-desktop/contract/muxwire"
)

// ExitLost is the client's status when the bridge is unreachable or the
// connection ends before the exit status: ssh's own for a failure of its.
const ExitLost = 255

// dialWait bounds the connection to the bridge.
const dialWait = 10 * time.Second

// Client runs ssh through a bridge, as ssh.exe would run itself: the
// program's argv, stdin, stdout and stderr.
type Client struct {
	// Env is EnvAddr's value ("ADDR SECRET").
	Env    string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Run sends args (ssh's, without argv[0]) to the bridge, relays the
// streams and returns ssh's exit status, or ExitLost and why. Its stdin
// copier may stay blocked in a read of Stdin after Run returns: fakessh,
// its one caller, exits then, which ends it.
func (cl Client) Run(args []string) (int, error) {
	addr, secret, err := parseEnv(cl.Env)
	if err != nil {
		return ExitLost, err
	}
	c, err := net.DialTimeout("tcp", addr, dialWait)
	if err != nil {
		return ExitLost, fmt.Errorf("sshbridge: dial %s: %w", addr, err)
	}
	defer c.Close()
	if err := writeHello(c, Hello{Secret: secret, Argv: args}); err != nil {
		return ExitLost, fmt.Errorf("sshbridge: send hello: %w", err)
	}
	go sendStdin(c, cl.Stdin) // ends at Stdin's end or the connection's
	return cl.receive(c)
}

// sendStdin frames r's bytes as FrameStdin, then an empty one at its end.
func sendStdin(c net.Conn, r io.Reader) {
	buf := make([]byte, chunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if muxwire.WriteFrame(c, muxwire.FrameStdin, buf[:n]) != nil {
				return
			}
		}
		if err != nil {
			_ = muxwire.WriteFrame(c, muxwire.FrameStdin, nil)
			return
		}
	}
}

// receive writes the bridge's output frames out until FrameExit.
func (cl Client) receive(c net.Conn) (int, error) {
	var buf []byte
	for {
		kind, p, err := muxwire.ReadFrame(c, buf)
		if err != nil {
			return ExitLost, fmt.Errorf("sshbridge: connection ended before the exit status: %w", err)
		}
		buf = p[:0]
		switch kind {
		case muxwire.FrameStdout:
			_, err = cl.Stdout.Write(p)
		case muxwire.FrameStderr:
			_, err = cl.Stderr.Write(p)
		case muxwire.FrameExit:
			return exitStatus(p)
		default:
			return ExitLost, fmt.Errorf("sshbridge: frame kind %d from the bridge", kind)
		}
		if err != nil {
			return ExitLost, fmt.Errorf("sshbridge: write output: %w", err)
		}
	}
}

// exitStatus is the status to exit with for a FrameExit payload: ssh's
// code, or ExitLost when ssh could not start or a signal ended it.
func exitStatus(p []byte) (int, error) {
	var e muxwire.Exit
	if err := json.Unmarshal(p, &e); err != nil {
		return ExitLost, fmt.Errorf("sshbridge: exit status %q: %w", p, err)
	}
	switch {
	case e.Error != "":
		return ExitLost, fmt.Errorf("sshbridge: the bridge: %s", e.Error)
	case e.Signal != "":
		return ExitLost, fmt.Errorf("sshbridge: ssh ended by %s", e.Signal)
	}
	return e.Code, nil
}
