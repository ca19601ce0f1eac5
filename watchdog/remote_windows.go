package watchdog

import (
	"fmt"
	"io"
)

// RemoteMain: remote backends' hosts are Linux and macOS; no Windows core
// is built for them.
func RemoteMain(_ string, _ []string, _ io.Reader, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, RemoteSubcommand+": remote backends run on Linux and macOS hosts only")
	return exitUsage
}

// HoldMain: see RemoteMain.
func HoldMain([]string) int { return exitUsage }

// RemoteReapMain: see RemoteMain.
func RemoteReapMain(_, stderr io.Writer) int {
	fmt.Fprintln(stderr, RemoteReapSubcommand+": remote backends run on Linux and macOS hosts only")
	return exitUsage
}
