// Package backend is the engine: the Launcher (one running instance: its
// locks, control socket, boot reap and backends), a Supervisor per backend
// (an actor whose one goroutine owns the running instance and moves it
// through an explicit state table: stopped, starting, ready, restarting,
// failed), the spawn behind the watchdog shim, readiness (ready line or
// file, then the health check), settings, status, and the update handoff
// (handoff.go, handoff_send.go, handoff_receive.go, handoff_wire.go).
//
// It builds on the layers below it (internal/proc, lockfile, watchdog and
// its own subpackages reap, leakguard, reclaim, logs, control) and must not
// import internal/cli, internal/desktop, main or Wails: the window reaches
// it only through the facade in app.go.
package backend
