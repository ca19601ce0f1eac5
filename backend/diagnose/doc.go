// Package diagnose writes the diagnostic report a person sends when
// something went wrong (`hermes-desktop diagnose`, "Save a diagnostic
// report..." in the window and the tray): one zip with the launcher's and
// each backend's logs (rotated ones too, each capped), the status, the
// reap reports, the update history, config.json, the versions and the
// containment facts. Every file passes through a Redactor on its way in:
// session tokens, keys, Authorization and X-Hermes-Session-Token values
// never reach the archive.
//
// It reads the state dir and is given the status; it signals nothing and
// changes nothing but the file it writes.
package diagnose
