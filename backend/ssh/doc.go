// Package ssh is the transport of remote backends over ssh: the user's
// own OpenSSH client, one session per host for the app's session,
// carrying our multiplexer (DESIGN "Remote backends (SSH)").
//
// Why ssh(1) and not golang.org/x/crypto/ssh: a remote backend must reach
// its host exactly as the user's terminal does, and that behaviour lives
// in ssh(1): ~/.ssh/config (Host aliases, Match, Include, ProxyJump,
// ProxyCommand), the agent and its confirmations, FIDO keys, certificates,
// known_hosts with hashed names and @cert-authority lines. Reimplementing
// that is a long tail of differences; running ssh(1) inherits it.
//
// One authentication per host, on every OS: a Host runs one ssh process
// (behind the watchdog shim, so it dies with the app) whose one command is
// the bootstrap (Options.Boot, backend/remotecore), which ends by exec'ing
// the remote core as the mux server; a yamux client over ssh's stdin and
// stdout then carries every command (Run), channel (Start), forward and
// dial as one stream each (contract/muxwire). No ControlMaster, no control
// socket, no fd passing: Windows' ssh.exe, which has none of them, runs
// the same code (Hermes #50707, #73927, #84452: one authentication per
// command there otherwise).
//
// Host keys are never accepted blindly: BatchMode=yes (no prompt), and
// StrictHostKeyChecking as the user configured it, except that a
// configured "no" is raised to "yes". An unknown key is an error naming the
// host, its fingerprints and what to run.
package ssh
