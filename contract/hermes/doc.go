// Package hermes is the contract hermes-desktop keeps with Hermes: what a
// Hermes backend and Hermes' own tools expect of a launcher, and what they
// write for it to read. Every name of it is spelled here once, for every
// package that needs it (DESIGN "Hermes interop contract"):
//
//   - the environment a launcher gives a backend (env.go);
//   - the serve and dashboard command lines and their exit codes (command.go);
//   - the ready lines and the ready file (ready.go);
//   - the session token, the header that carries it, and the public paths
//     (auth.go);
//   - the ownership files of Hermes' other processes: the SSH-mode backend
//     lock, schema 2, with its session token file and owner nonce
//     (sshlock.go), and the gateway's PID file (gateway.go);
//   - the one rule for "is this host loopback" (loopback.go).
//
// Every layer may use it. Variables of our own protocol between
// the launcher and its watchdog shim are not here but in watchdog's
// protocol.go; the launcher's own settings (HERMES_DESKTOP_*) are not Hermes'
// either, except HERMES_DESKTOP_READY_FILE, which Hermes reads.
package hermes
