// Command hermes-desktop launches, supervises and cleans up the local
// `hermes serve` backends of the Hermes agent (or any loopback HTTP backend
// with the same contract). With no arguments it opens the desktop window;
// subcommands run it headless and talk to a running instance.
package main

import (
	"fmt"
	"io"
	"os"

	"hermes-desktop/backend/builtin"
	"hermes-desktop/watchdog"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes shared by the subcommands.
const (
	exitOK         = 0
	exitError      = 1
	exitUsage      = 2
	exitNotRunning = 3
)

func main() {
	builtin.Version = version
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// args is the command line the launcher was started with, for a handoff's
// successor.
var args = func() []string { return append([]string(nil), os.Args[1:]...) }

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return cmdRun(nil, stdout, stderr)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return cmdRun(rest, stdout, stderr)
	case "status":
		return cmdStatus(rest, stdout, stderr)
	case "restart":
		return cmdRestart(rest, stdout, stderr)
	case "stop":
		return cmdStop(rest, stdout, stderr)
	case "reap":
		return cmdReap(rest, stdout, stderr)
	case "handoff":
		return cmdHandoff(rest, stdout, stderr)
	case "serve":
		return builtin.Main(rest, stdout, stderr)
	case "watchdog":
		return watchdog.ShimMain(rest, stderr)
	case builtin.ChildCommand: // hidden: the built-in backend's fault children
		return builtin.ChildMain(rest, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "hermes-desktop", version)
		return exitOK
	case "help", "-h", "--help":
		usage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "hermes-desktop: unknown command %q\n\n", cmd)
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: hermes-desktop [command] [flags]

With no command, opens the desktop window (or runs headless where there is
no display or no GUI in this build).

Commands:
  run       run the launcher: boot reap, start and supervise the backends
  status    show the running instance and its backends (--json for scripts)
  restart   restart a backend (--backend NAME) or all of them
  stop      tear every backend down and stop the running instance
  reap      find and remove backends that earlier crashes left behind (--dry-run)
  handoff   hand the running instance over to a new binary (updates)
  serve     the built-in backend (implements the Hermes backend contract)
  watchdog  the parent-death shim every backend runs behind (see --help)
  version   print the version

Run 'hermes-desktop COMMAND --help' for a command's flags.
`)
}
