// Package remotecore puts our core on a remote host and runs it there
// verified: the groundwork of remote backends (README "Remote backends
// (groundwork)"; DESIGN "Remote backends (SSH)").
//
// A remote backend runs behind our watchdog on the remote host, so the
// remote needs our core: the CGO-off build for its OS and architecture.
// Releases ship four (scripts/remote-cores.sh: linux/amd64, linux/arm64,
// darwin/arm64, darwin/amd64) in a cores directory next to the app, with
// their SHA-256s (OpenCores, LocateCores). Install asks the remote what it
// is (`uname -sm`, ParseUname), uploads the matching core under the remote
// user's home only when the file there is missing or differs, and returns
// an Installed whose Exec verifies the digest again right before it execs
// the core, so a file swapped after the upload is never run.
//
// Everything goes through Remote, one short command at a time, each with a
// timeout; backend/ssh's Host is the real one.
package remotecore
