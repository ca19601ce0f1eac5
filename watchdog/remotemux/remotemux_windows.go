package remotemux

import (
	"fmt"
	"io"
)

// MuxMain refuses on Windows.
func MuxMain(version string, stdin io.Reader, stdout, stderr io.Writer) int {
	_, _ = version, stdin
	_, _ = stdout, stderr
	fmt.Fprintln(stderr, ErrUnsupported)
	return 2
}
