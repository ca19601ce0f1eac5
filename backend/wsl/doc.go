// Package wsl is the transport of remote backends that run in a WSL
// distribution on this Windows machine: a transport.Transport over
// `wsl.exe` instead of ssh. Everything else (the core installed per
// version, the remote watchdog with its channel as lifeline, Hermes' SSH
// ownership contract) is the remote runner's, unchanged.
//
// Commands run as `wsl.exe [--distribution D] --cd ~ --exec ARGV...`:
// --exec, not `--`, so that no login shell of the user's (bash, zsh, fish,
// csh) re-parses our command line; each argument reaches the Linux side as
// one argv element, written with Windows' standard quoting (Go's os/exec)
// and read back by wsl.exe. Run wraps the command in a timeout run inside
// the distribution (TimeoutArgv), so a command that hangs is killed there,
// not only our wsl.exe. Start is a long command whose stdin and stdout are
// ours. Forward is an in-process TCP relay (transport.Relay) from
// 127.0.0.1:local here to 127.0.0.1:port there, which WSL 2 connects to the
// distribution's loopback (localhostForwarding, on by default; mirrored
// networking does the same); a unix socket target is refused.
//
// The package builds on every OS, so that the relay and the command lines
// are tested on Linux (with a stand-in for wsl.exe); only Windows has
// wsl.exe, so elsewhere Status says it is missing.
package wsl
