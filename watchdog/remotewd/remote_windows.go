package remotewd

import (
	"fmt"
	"io"

	"hermes-desktop/watchdog"
)

// RemoteMain refuses: remote backends' hosts are Linux and macOS; no
// Windows core is built for them.
func RemoteMain(_ string, _ []string, _ io.Reader, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, RemoteSubcommand+": remote backends run on Linux and macOS hosts only")
	return watchdog.ExitUsage
}

// HoldMain refuses, as RemoteMain does.
func HoldMain([]string) int { return watchdog.ExitUsage }

// RemoteReapMain refuses, as RemoteMain does.
func RemoteReapMain(_, stderr io.Writer) int {
	fmt.Fprintln(stderr, RemoteReapSubcommand+": remote backends run on Linux and macOS hosts only")
	return watchdog.ExitUsage
}
