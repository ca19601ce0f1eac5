// Package backend is the engine: the Launcher (one running app: its claim
// on the state dir, that is its locks and control socket (claim.go), the
// supervisors, the boot reap, notices, status), with a supervisor.Supervisor
// per backend (package supervisor: the actor and its state table) and
// attaching to a Hermes already running. What a person opens (a page, a
// folder, the window again) is its Pages; the settings a person saved, its
// Saved.
// The handoff (handoff.Sender and handoff.Receive, with its wire) and the
// self-update built on it (selfupdate.Updater: checks, download, apply,
// the health window the old process watches, the relaunch into an
// upgraded executable) are objects of their own; the launcher holds one
// of each and answers them through handoffs.go and updates.go.
//
// The restarts, one word each in Go:
//   - Restart: a backend's (Launcher.Restart, the tray's Restart, the
//     control op "restart").
//   - Relaunch: this app handing over to a new run of its own executable
//     (Launcher.Relaunch, for the settings saved since it started: the
//     page's RestartApp, "Restart Hermes Desktop"; Updater.RelaunchUpgraded,
//     into the executable a package upgrade put on disk: the page's
//     RestartToApply, "Restart to apply").
//   - Apply: installing a downloaded update and handing over to it
//     (Updater.Apply: the page's ApplyUpdate, "Restart to update"; the
//     control op "update-apply").
//
// The page's names, the control ops and the handoff's "restart" mode are
// on the wire between binaries of different versions and stay as they are.
// Where the package sits among the layers is e2e/layers_test.go's to say:
// it never imports app/, main or Wails.
package backend
