// Package update is the self-update mechanism, standalone: the signed feed
// (its format, shared with cmd/release, and its verification), the
// resumable verified download, staging and the smoke test of a new binary,
// the swap with one .old kept and its restore, how this copy was installed
// (self-managed or package-managed), and the small files under
// <state>/updates that remember bad and skipped versions and the health
// window in progress.
//
// It decides nothing about when to update and starts no instance: the
// Updater (backend/selfupdate) schedules checks, publishes progress, has
// the launcher hand over to the new binary and watches its health window.
//
// It sits beside backend/control and backend/reap, above lockfile and
// platform/proc: it imports those, aead.dev/minisign and the standard
// library, never backend, control or the CLI.
package update
