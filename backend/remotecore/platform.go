package remotecore

import (
	"errors"
	"fmt"
	"strings"
)

// Platform is an OS and architecture in Go's words (GOOS, GOARCH).
type Platform struct {
	GOOS   string
	GOARCH string
}

// String is "goos/goarch", as `go tool dist list` writes it.
func (p Platform) String() string { return p.GOOS + "/" + p.GOARCH }

// Platforms are the remotes we build a core for, in build order.
var Platforms = []Platform{
	{"linux", "amd64"},
	{"linux", "arm64"},
	{"darwin", "arm64"},
	{"darwin", "amd64"},
}

// ErrUnsupported means the remote is an OS or architecture we ship no core
// for; the error wrapping it quotes what the remote said.
var ErrUnsupported = errors.New("remotecore: no core for this remote")

// kernels maps `uname -s` to GOOS.
var kernels = map[string]string{
	"Linux":  "linux",
	"Darwin": "darwin",
}

// machines maps `uname -m` to GOARCH. Linux says x86_64 or aarch64 (arm64
// on some distributions' kernels), macOS x86_64 or arm64; a shell under
// Rosetta says x86_64 and the amd64 core runs there. 32-bit ARM (armv7l),
// i686 and big-endian aarch64_be have no core: refused, not guessed.
var machines = map[string]string{
	"x86_64":  "amd64",
	"amd64":   "amd64",
	"aarch64": "arm64",
	"arm64":   "arm64",
}

// ParseUname reads the output of `uname -sm` ("Linux x86_64") and returns
// the platform whose core runs there, or an error wrapping ErrUnsupported
// that says what the remote answered.
func ParseUname(out string) (Platform, error) {
	fields := strings.Fields(out)
	if len(fields) != 2 {
		return Platform{}, fmt.Errorf("%w: uname -sm said %q, want two words (kernel, machine)", ErrUnsupported, out)
	}
	goos, okOS := kernels[fields[0]]
	goarch, okArch := machines[fields[1]]
	if !okOS || !okArch {
		return Platform{}, fmt.Errorf("%w: uname -sm said %q (we ship cores for %s)", ErrUnsupported, strings.TrimSpace(out), supported())
	}
	return Platform{goos, goarch}, nil
}

// supported lists Platforms for an error message.
func supported() string {
	s := make([]string, len(Platforms))
	for i, p := range Platforms {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}
