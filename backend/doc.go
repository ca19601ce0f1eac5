// Package backend is the engine: the Launcher (one running app: its claim
// on the state dir, that is its locks and control socket (claim.go), the
// supervisors, the boot reap, notices, status), with a supervisor.Supervisor
// per backend (package supervisor: the actor and its state table) and
// attaching to a Hermes already running.
// The handoff (handoff.Sender and handoff.Receive, with its wire) and the
// self-update built on it (selfupdate.Updater: checks, download, apply,
// the health window the old process watches, Restart to apply) are objects
// of their own; the launcher holds one of each and answers them through
// handoffs.go and updates.go.
//
// It builds on platform/ (proc, cgroup, job, ...), on lockfile and
// watchdog (the engine's folders the design card keeps at the top level)
// and on its own subpackages (model, handoff, instance, runspec, settings,
// reap, leakguard, reclaim, logs, control, update, selfupdate, supervisor,
// corebin)
// and must not import app/ (cli, desktop, lifecycle),
// main or Wails: the window reaches it only through the facade in app.go
// (e2e/layers_test.go: a floor imports only its own or lower).
package backend
