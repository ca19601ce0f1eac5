// Package backend is the engine: the Launcher (one running app: its locks,
// control socket, boot reap, backends), a Supervisor per backend (an actor
// whose one goroutine owns the running instance.Instance and moves it
// through model's state table: stopped, starting, ready, restarting,
// failed, external), attaching to a Hermes already running, status, and
// the update handoff (handoff.go, handoff_send.go, handoff_receive.go; its
// protocol in handoffwire). The self-update built on it is its own object
// (selfupdate.Updater: checks, download, apply, the health window the old
// process watches, Restart to apply); the launcher holds one and answers
// it through updates.go.
//
// It builds on the layers below it (internal/proc, lockfile, watchdog and
// its own subpackages model, handoffwire, instance, runspec, settings,
// reap, leakguard, reclaim, logs, control, update, selfupdate) and must
// not import internal/cli, internal/desktop, main or Wails: the window
// reaches it only through the facade in app.go.
package backend
