package sshbridge

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"hermes-desktop/contract/muxwire"
)

// EnvAddr is the environment variable that tells fakessh where its bridge
// is: "ADDR SECRET" (Bridge.Env writes it, Dial reads it). The secret
// keeps other local accounts, who can connect to a loopback port too,
// from running ssh as the test's user.
const EnvAddr = "HERMES_SSHBRIDGE"

// Forced are the options the bridge puts before the client's arguments.
var Forced = []string{"-o", "ControlMaster=no", "-o", "ControlPath=none"}

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

// readHello reads a Hello line and checks it against secret: the secret
// (constant time), known fields only, at most MaxArgs arguments, each
// valid UTF-8 without NUL (exec could not pass it on).
func readHello(r io.Reader, secret string) (Hello, error) {
	line, err := muxwire.ReadLineBytes(r, muxwire.MaxLine)
	if err != nil {
		return Hello{}, fmt.Errorf("sshbridge: read hello: %w", err)
	}
	if !utf8.Valid(line) {
		// json would take it, each bad byte made U+FFFD: not what was sent.
		return Hello{}, fmt.Errorf("%w: not UTF-8", ErrRefused)
	}
	var h Hello
	dec := json.NewDecoder(strings.NewReader(string(line)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return Hello{}, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	if dec.More() {
		return Hello{}, fmt.Errorf("%w: more than one value on the line", ErrRefused)
	}
	if subtle.ConstantTimeCompare([]byte(h.Secret), []byte(secret)) != 1 {
		return Hello{}, fmt.Errorf("%w: wrong secret", ErrRefused)
	}
	return h, validArgv(h.Argv)
}

// validArgv says what is wrong with argv, if anything.
func validArgv(argv []string) error {
	if len(argv) > MaxArgs {
		return fmt.Errorf("%w: %d arguments, at most %d", ErrRefused, len(argv), MaxArgs)
	}
	for i, a := range argv {
		if !utf8.ValidString(a) || strings.IndexByte(a, 0) >= 0 {
			return fmt.Errorf("%w: argument %d is not text without NUL: %q", ErrRefused, i, a)
		}
	}
	return nil
}

// parseEnv splits EnvAddr's value into the address and the secret.
func parseEnv(v string) (addr, secret string, err error) {
	addr, secret, ok := strings.Cut(v, " ")
	if !ok || addr == "" || len(secret) != secretLen {
		return "", "", fmt.Errorf("sshbridge: %s=%q: want \"ADDR SECRET\"", EnvAddr, v)
	}
	return addr, secret, nil
}
