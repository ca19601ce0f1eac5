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
//   - Restart: a backend's, stopped and started again (Launcher.Restart,
//     App.Restart, the tray's Restart, the control op "restart"; the
//     handoff's "restart" mode, where the successor starts the backends
//     afresh, is one too).
//   - Relaunch: this app handing over to a new run of the same executable,
//     for the settings saved since it started (Launcher.Relaunch,
//     handoff.Sender.Relaunch, App.Relaunch: "Restart Hermes Desktop").
//   - Apply: handing over to a new version: one downloaded and installed
//     by the self-update (Updater.Apply, App.ApplyUpdate: "Restart to
//     update", the control op "update-apply"), or one a package upgrade
//     put on disk (Updater.ApplyInstalled, App.ApplyInstalledUpdate,
//     model.InstanceInfo.UpdateInstalled: "Restart to apply", `handoff`
//     with no --to).
//
// The labels a person reads, the control ops, the CLI's words, the JSON
// (restart_to_apply) and the handoff's "restart" mode are on the wire or
// on screen and stay as they are.
// Where the package sits among the layers is e2e/layers_test.go's to say:
// it never imports app/, main or Wails.
package backend
