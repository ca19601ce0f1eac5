package hermes

// Verbs of the hermes command that run a backend server.
const (
	// VerbServe runs the headless backend: the API only; every other path
	// answers 404 JSON.
	VerbServe = "serve"
	// VerbDashboard runs the same server with Hermes' page, the session
	// token injected into it.
	VerbDashboard = "dashboard"
	// VerbWebapp is an older name of a serve-like verb; the boot reaper
	// treats it as one.
	VerbWebapp = "webapp"
)

// Flags of serve and dashboard, as written on a command line. Hermes reads
// them with argparse: "--flag value" and "--flag=value" alike, the last
// one wins.
const (
	// FlagHost is the address the server binds.
	FlagHost = "--host"
	// FlagPort is the port it binds; PortAny lets the OS choose.
	FlagPort = "--port"
	// FlagNoOpen keeps `hermes dashboard` from opening a browser.
	FlagNoOpen = "--no-open"
	// FlagIsolated opts a backend out of attaching to the host's shared
	// one; Hermes Desktop's SSH backends carry it.
	FlagIsolated = "--isolated"
	// FlagSSHSessionTokenFile names the file an SSH-owned serve reads its
	// session token from (and removes): see SSHTokenFile for where Hermes
	// accepts it. Only the desktop that owns the session knows the token,
	// so the flag on a command line is Hermes' own mark of ownership.
	FlagSSHSessionTokenFile = "--ssh-session-token-file"
	// FlagSSHOwnerNonce is the spawn nonce of an SSH-owned serve (16
	// lowercase hex digits, ValidSpawnNonce), the same as its lock's
	// spawnNonce.
	FlagSSHOwnerNonce = "--ssh-owner-nonce"
)

// The address a launcher gives a local backend: loopback only, on a port
// of the OS's choice.
const (
	// LoopbackIP is the value a launcher gives FlagHost.
	LoopbackIP = "127.0.0.1"
	// PortAny is the value of FlagPort that lets the OS choose the port.
	PortAny = "0"
)

// LocalArgs is the command line after the hermes executable that runs verb
// on loopback on a port the OS chooses: `serve --host 127.0.0.1 --port 0`,
// `dashboard --no-open --host 127.0.0.1 --port 0`.
func LocalArgs(verb string) []string {
	args := []string{verb}
	if verb == VerbDashboard {
		args = append(args, FlagNoOpen)
	}
	return append(args, FlagHost, LoopbackIP, FlagPort, PortAny)
}

// Exit codes with a meaning in the contract.
const (
	// ExitPortInUse is a backend's exit code when its port is taken.
	ExitPortInUse = 75
	// ExitRefused (EX_CONFIG) is a `hermes dashboard` or serve that refuses
	// to attach to the host's live backend (an explicit --port or --host it
	// cannot serve, or a dashboard asked of a headless one). A restart
	// would refuse again.
	ExitRefused = 78
)
