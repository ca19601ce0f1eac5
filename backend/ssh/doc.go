// Package ssh is the transport of remote backends: the user's own OpenSSH
// client, one multiplexed connection per host for the app's session.
//
// Why ssh(1) and not golang.org/x/crypto/ssh: a remote backend must reach
// its host exactly as the user's terminal does, and that behaviour lives
// in ssh(1): ~/.ssh/config (Host aliases, Match, Include, ProxyJump,
// ProxyCommand), the agent and its confirmations, FIDO keys, certificates,
// known_hosts with hashed names and @cert-authority lines. Reimplementing
// that is a long tail of differences; running ssh(1) inherits it.
//
// One authentication per host: a Host runs one master (`ssh -M -N`,
// ControlPersist off, our child, collected by Close) with its control socket
// in our state dir; every command and forward goes through it as a mux
// client (`-S socket -o ControlMaster=no`). A mux client never opens a
// connection of its own: ProxyCommand=false makes ssh's fallback (master
// gone) fail at once instead of authenticating again (Hermes #90834: 35
// authentications to connect).
//
// Host keys are never accepted blindly: BatchMode=yes (no prompt), and
// StrictHostKeyChecking as the user configured it, except that a
// configured "no" is raised to "yes". An unknown key is an error naming the
// host, its fingerprints and what to run.
//
// Windows: Windows' OpenSSH (ssh.exe, Windows 10+) has no ControlMaster
// (no Unix-socket multiplexing), so New returns ErrNoMultiplexing there
// rather than silently authenticating once per command; remote backends on
// Windows are to go through WSL's ssh (not built yet).
package ssh
