package sshbridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"hermes-desktop/contract/muxwire"
)

// EnvAddr is the environment variable that tells fakessh where its bridge
// is: "ADDR SECRET" (Bridge.Env writes it, Dial reads it). The secret
// keeps other local accounts, who can connect to a loopback port too,
// from running ssh as the test's user.
const EnvAddr = "HERMES_SSHBRIDGE"

// Forced are the options the bridge puts before the client's arguments.
var Forced = []string{"-o", "ControlMaster=no", "-o", "ControlPath=none"}

// chunk is the most of one output write a frame carries.
const chunk = 32 << 10

// Bounds on what a client may send in its Hello.
const (
	MaxArgs   = 256
	secretLen = 64 // hex of 32 random bytes
)

// Hello is the client's first line: the bridge's secret and ssh's
// arguments (without argv[0]).
type Hello struct {
	Secret string   `json:"secret"`
	Argv   []string `json:"argv"`
}

// ErrRefused means a Hello the bridge does not accept; the connection is
// closed without running anything.
var ErrRefused = errors.New("sshbridge: hello refused")

// writeHello sends h as one line.
func writeHello(w io.Writer, h Hello) error {
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("sshbridge: hello: %w", err)
	}
	if len(b) >= muxwire.MaxLine {
		return fmt.Errorf("sshbridge: hello of %d bytes: %w", len(b), muxwire.ErrTooLong)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// parseEnv splits EnvAddr's value into the address and the secret.
func parseEnv(v string) (addr, secret string, err error) {
	addr, secret, ok := strings.Cut(v, " ")
	if !ok || addr == "" || len(secret) != secretLen {
		return "", "", fmt.Errorf("sshbridge: %s=%q: want \"ADDR SECRET\"", EnvAddr, v)
	}
	return addr, secret, nil
}
