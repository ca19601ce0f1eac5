// Package cli holds hermes-desktop's command-line verbs: run (headless or,
// through the Program's GUI hook, with a window), status, restart, stop,
// reap, handoff, remote-cores, the built-in backend's serve and dashboard verbs, and the
// hidden watchdog and fault-child entry points of the child processes. It
// turns flags, environment variables and saved settings into a
// backend.Config and talks to a running instance over the control socket.
//
// The window is reached only through Program.Window, which main provides,
// so the CLI builds without Wails.
package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"hermes-desktop/app/lifecycle"
	"hermes-desktop/backend"
	"hermes-desktop/backend/builtin"
	"hermes-desktop/backend/update"
	"hermes-desktop/watchdog"
	"hermes-desktop/watchdog/netns"
	"hermes-desktop/watchdog/remotemux"
	"hermes-desktop/watchdog/remotewd"
)

// Exit codes of every verb, defined once.
const (
	ExitOK         = 0
	ExitError      = 1
	ExitUsage      = 2
	ExitNotRunning = 3 // no instance answers on the state dir, or nothing in it can do what was asked
)

// Program is what main hands the CLI: its version and, in desktop builds,
// the window.
type Program struct {
	// Version is reported by `version`, in status and by the built-in
	// backend's /api/health; "" is "dev".
	Version string
	// UpdateKeys are the update feed's trusted public keys, compiled in;
	// empty entries are ignored, and none turns updates off.
	UpdateKeys []string
	// GUIAvailable says whether a window can be shown here, and why not;
	// nil means never (a headless build).
	GUIAvailable func() (bool, string)
	// Window makes the window and tray the launcher runs behind
	// (lifecycle.Options.Window), self being the app's executable; nil
	// means headless only.
	Window func(l *backend.Launcher, self string) lifecycle.Window
}

// Main runs one verb, argv being the command line without the program's
// name, and returns the process's exit code. With no arguments it runs
// the launcher (the window where there is one).
func Main(argv []string, stdout, stderr io.Writer, p Program) int {
	if p.Version == "" {
		p.Version = "dev"
	}
	if len(argv) == 0 {
		return cmdRun(nil, argv, p, stdout, stderr)
	}
	cmd, rest := argv[0], argv[1:]
	if code, ok := hiddenMain(cmd, rest, p.Version, stdout, stderr); ok {
		return code
	}
	switch cmd {
	case "run":
		return cmdRun(rest, argv, p, stdout, stderr)
	case "status":
		return cmdStatus(rest, stdout, stderr)
	case "restart":
		return cmdRestart(rest, stdout, stderr)
	case "stop":
		return cmdStop(rest, stdout, stderr)
	case "start":
		return cmdStart(rest, stdout, stderr)
	case "open":
		return cmdOpen(rest, stdout, stderr)
	case "reap":
		return cmdReap(rest, stdout, stderr)
	case "handoff":
		return cmdHandoff(rest, stdout, stderr)
	case "backends":
		return cmdBackends(rest, stdout, stderr)
	case "diagnose":
		return cmdDiagnose(rest, p.Version, stdout, stderr)
	case "update":
		return cmdUpdate(rest, stdout, stderr)
	case "serve":
		return builtin.Main(p.Version, rest, stdout, stderr)
	case "dashboard":
		return builtin.DashboardMain(p.Version, rest, stdout, stderr)
	case "version", "--version":
		return cmdVersion(rest, p.Version, stdout)
	case "remote-cores":
		return cmdRemoteCores(rest, p.Version, stdout, stderr)
	case "help", "-h", "--help":
		usage(stdout)
		return ExitOK
	}
	fmt.Fprintf(stderr, "hermes-desktop: unknown command %q\n\n", cmd)
	usage(stderr)
	return ExitUsage
}

// hiddenMain runs a hidden entry point, a child the app or its remote
// watchdog starts (never typed by a person); false when cmd is none.
func hiddenMain(cmd string, rest []string, version string, stdout, stderr io.Writer) (int, bool) {
	switch cmd {
	case watchdog.Subcommand:
		return watchdog.ShimMain(rest, stderr), true
	case remotewd.RemoteSubcommand: // run over ssh by a remote backend's runner
		return remotewd.RemoteMain(version, rest, os.Stdin, stdout, stderr), true
	case remotemux.Subcommand: // the remote core's mux server, the end of the ssh bootstrap
		return remotemux.MuxMain(version, os.Stdin, stdout, stderr), true
	case remotewd.RemoteReapSubcommand: // run over ssh before a remote start
		return remotewd.RemoteReapMain(stdout, stderr), true
	case remotewd.RemoteHoldSubcommand: // the remote watchdog's held start
		return remotewd.HoldMain(rest), true
	case netns.Subcommand: // the relay in a remote backend's namespace, and its probe
		return netns.Main(rest, stderr), true
	case builtin.ChildCommand: // the built-in backend's fault children
		return builtin.ChildMain(rest, stderr), true
	}
	return 0, false
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: hermes-desktop [command] [flags]

With no command, opens the desktop window (or runs headless where there is
no display or no GUI in this build).

Commands:
  run        run the launcher: boot reap, start and supervise the backends
  status     show the running instance and its backends (--json for scripts)
  open       open Hermes' page in the browser (--print: only print its URL)
  restart    restart a backend (--backend NAME) or all of them
  start      start a stopped backend (--backend NAME) or all of them
  stop       stop a backend (--backend NAME), or tear every backend down and
             stop the running instance
  backends   list, add or remove backends (backends add NAME, backends remove NAME),
             through the running app or, with none, in the saved settings
  diagnose   save a diagnostic report to send (-o FILE): logs, status, versions, with
             every secret redacted
  reap       find and remove backends that earlier crashes left behind (--dry-run)
  handoff    hand the running instance over to a new binary (updates)
  update     check for (update check) and install (update apply) a new version
  serve      the built-in backend, headless (implements the Hermes backend contract)
  dashboard  the built-in backend with a page at / (stands in for 'hermes dashboard')
  watchdog   the parent-death shim every backend runs behind (see --help)
  remote-cores
             show the cores this app installs on remote (ssh) hosts (--json)
  version    print the version and, on Linux, the WebKitGTK flavour (--json:
             {"version": "...", "flavour": "webkit41"})

Run 'hermes-desktop COMMAND --help' for a command's flags.
`)
}

// cmdVersion prints the version, and the WebKitGTK flavour of a Linux
// desktop build ("hermes-desktop 1.2.3 (WebKitGTK 4.1)"); with --json as
// the self-update's smoke test reads it (update.VersionInfo).
func cmdVersion(args []string, version string, stdout io.Writer) int {
	if len(args) > 0 && (args[0] == "--json" || args[0] == "-json") {
		data, _ := json.Marshal(update.VersionInfo{Version: version, Flavour: update.Flavour})
		fmt.Fprintln(stdout, string(data))
		return ExitOK
	}
	if name := update.FlavourName(update.Flavour); name != "" {
		fmt.Fprintf(stdout, "hermes-desktop %s (%s)\n", version, name)
		return ExitOK
	}
	fmt.Fprintln(stdout, "hermes-desktop", version)
	return ExitOK
}
