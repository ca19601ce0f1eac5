package netns

import (
	"fmt"
	"io"
)

// Main refuses: remote backends' hosts are Linux and macOS.
func Main(_ []string, stderr io.Writer) int {
	fmt.Fprintln(stderr, Subcommand+": remote backends run on Linux and macOS hosts only")
	return 2
}
