// Command hermes-desktop launches, supervises and cleans up the local
// `hermes serve` backends of the Hermes agent (or any loopback HTTP backend
// with the same contract). With no arguments it opens the desktop window;
// subcommands run it headless and talk to a running instance.
//
// The main package only wires: the verbs live in app/cli, the run's
// lifecycle in app/lifecycle, the engine in backend, watchdog and
// lockfile, the tray and login items in app/desktop. What must stay
// here is what Wails needs in package main: the window (gui_desktop.go, a
// lifecycle.Window), the App the page calls (app.go, app_report.go), the
// shell around it that the window and the tray drive (app_shell.go,
// app_pump.go, app_hint.go) and the //go:embed of the built page.
package main

import (
	"os"

	"hermes-desktop/app/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// updatePubKey and updatePubKey2 are the update feed's trusted minisign
// public keys, set at build time (make build UPDATE_PUBKEY=... and, while
// rotating keys, UPDATE_PUBKEY2=...: -ldflags "-X main.updatePubKey=...").
// A build with neither has updates off, and says so.
var updatePubKey, updatePubKey2 string

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Program{
		Version:      version,
		UpdateKeys:   []string{updatePubKey, updatePubKey2},
		GUIAvailable: guiAvailable,
		Window:       newWindow,
	}))
}
