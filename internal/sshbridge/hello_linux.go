package sshbridge

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"hermes-desktop/contract/muxwire"
)

// The bridge's side of the Hello (the bridge runs on Linux only).

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
