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
// Its errors are sentinels of its own (errors.go); control/protocol maps
// them to the control channel's codes, so this package sees nothing of the
// socket. Where it sits among the layers is e2e/layers_test.go's to say.
package update
