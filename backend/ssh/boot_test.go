package ssh

import (
	"io"
	"strings"
	"testing"

	"hermes-desktop/contract/muxwire"
)

// The Banner ends the bootstrap's output; the multiplexer's bytes after
// it stay unread. Anything else first is an error that quotes it.
func TestReadBanner(t *testing.T) {
	r := strings.NewReader(muxwire.Banner + "\nYAMUX")
	if err := readBanner(r); err != nil {
		t.Fatalf("the banner: %v", err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != "YAMUX" {
		t.Errorf("after the banner: got %q left, want the multiplexer's bytes", rest)
	}
	for in, want := range map[string]string{
		"motd\n" + muxwire.Banner + "\n":         "motd",
		"hermes-desktop-mux 2\n":                 "hermes-desktop-mux 2",
		"sh: 1: exec: core: Permission denied\n": "Permission denied",
	} {
		err := readBanner(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("readBanner(%q): got %v, want an error quoting %q", in, err, want)
		}
	}
}
