package builtin

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"hermes-desktop/contract/hermes"
)

// Verb is what the server serves besides the API, as Hermes' two verbs
// that run the same server.
type Verb int

const (
	// VerbServe is `hermes serve`: headless, every non-API path answers
	// 404 JSON.
	VerbServe Verb = iota
	// VerbDashboard is `hermes dashboard`: GET / serves a page with the
	// session token injected.
	VerbDashboard
)

// String returns the verb as Hermes spells it (serve, dashboard).
func (m Verb) String() string {
	if m == VerbDashboard {
		return hermes.VerbDashboard
	}
	return hermes.VerbServe
}

// readyPrefix is the stdout line that announces the port for this verb.
func (m Verb) readyPrefix() string {
	if m == VerbDashboard {
		return hermes.DashboardReadyPrefix
	}
	return hermes.ServeReadyPrefix
}

// flagName is a Hermes flag (hermes.FlagHost, say) as the flag package
// names it, without its dashes.
func flagName(flag string) string { return strings.TrimPrefix(flag, "--") }

// Options are the flags of `hermes-desktop serve` and `hermes-desktop
// dashboard`.
type Options struct {
	Verb Verb
	Host string
	Port int
	// PublicHealth answers /api/health without the session token. Hermes
	// gates it; zero means gated, as in Hermes.
	PublicHealth bool
	// SSHTokenFile and SSHOwnerNonce are Hermes' SSH contract flags.
	SSHTokenFile, SSHOwnerNonce string
	// Faults are the fault injection for tests; zero values mean "behave".
	Faults
	// ParentPoll, when set, watches the parent only by polling getppid()
	// at this period, as Hermes' own watchdog does (a benchmark baseline).
	ParentPoll time.Duration
	// NoParentWatch disables the parent watchdog (a benchmark baseline).
	NoParentWatch bool
}

// Faults are the built-in backend's fault flags, which tests use to
// make it misbehave; each field's zero value means "behave".
type Faults struct {
	// StartDelay waits this long before listening.
	StartDelay time.Duration
	// IgnoreSIGTERM catches and ignores SIGTERM and SIGINT.
	IgnoreSIGTERM bool
	// CrashAfter exits with ExitCode (1 when unset) this long after
	// becoming ready.
	CrashAfter time.Duration
	// ExitCode is the exit code; alone, exit with it before becoming
	// ready. -1: unset.
	ExitCode int
	// SpawnChildren and SpawnSetsidChildren start this many children in
	// the backend's process group, and in new sessions.
	SpawnChildren       int
	SpawnSetsidChildren int
	// ChildrenAfter starts the SpawnChildren and SpawnSetsidChildren
	// children this long after binding, as Hermes starts its stdio MCP
	// servers about 1 s after bind; zero starts them before the READY line.
	ChildrenAfter time.Duration
	// LeakChildrenEvery starts a new identical child this often and
	// never stops the old ones.
	LeakChildrenEvery time.Duration
	// LeakFDsEvery opens a file descriptor this often and never closes
	// it.
	LeakFDsEvery time.Duration
	// DaemonizeEvery starts, this often, a child that daemonizes itself the
	// classic way (fork, setsid, fork again, the middle one exits) with an
	// empty environment: the grandchild has no parent of ours, no session
	// of ours and no variable that ties it to the backend.
	DaemonizeEvery time.Duration
	// DaemonLabel is put on the daemons' command lines (--label), so a
	// test can find them without their environment.
	DaemonLabel string
	// ScrubChildEnv starts the fault children with only HOME and PATH, as
	// the Python MCP SDK starts stdio servers: nothing in their environment
	// ties them to the backend.
	ScrubChildEnv bool
	// KeepChildEnv names more variables a scrubbed child keeps (a test
	// suite's tag, say).
	KeepChildEnv []string
}

func parseFlags(verb Verb, args []string, stderr io.Writer) (Options, error) {
	o := Options{Verb: verb}
	fs := flag.NewFlagSet(verb.String(), flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { printUsage(fs, verb, stderr) }
	fs.StringVar(&o.Host, flagName(hermes.FlagHost), hermes.LoopbackIP, "address to bind")
	fs.IntVar(&o.Port, flagName(hermes.FlagPort), 0, "port to bind (0: ephemeral)")
	fs.BoolVar(&o.PublicHealth, "public-health", false, "answer "+hermes.HealthPath+" without the session token (Hermes gates it)")
	addFaultFlags(fs, &o)
	// Hermes' serve takes a profile; accepted and ignored so a Hermes command
	// line works with the built-in backend too.
	fs.String("profile", "", "accepted for Hermes compatibility; ignored")
	// Hermes Desktop's SSH contract (hermes.SSHTokenFile): the token comes
	// from a one-shot file, the nonce names the spawn in its lock.
	fs.Bool(flagName(hermes.FlagIsolated), false, "accepted for Hermes compatibility: this server never attaches to another")
	fs.StringVar(&o.SSHTokenFile, flagName(hermes.FlagSSHSessionTokenFile), "", "read the session token from this one-shot file (Hermes' SSH contract)")
	fs.StringVar(&o.SSHOwnerNonce, flagName(hermes.FlagSSHOwnerNonce), "", "the spawn nonce of an SSH-owned backend (16 lowercase hex digits)")
	if verb == VerbDashboard {
		// This server never opens a browser; the flag exists so that a
		// `hermes dashboard --no-open` command line works unchanged.
		fs.Bool(flagName(hermes.FlagNoOpen), false, "accepted for Hermes compatibility; a browser is never opened")
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("%s: unexpected argument %q", verb, fs.Arg(0))
	}
	if o.SSHOwnerNonce != "" && !hermes.ValidSpawnNonce(o.SSHOwnerNonce) {
		return o, fmt.Errorf("%s: %s %q is not 16 lowercase hex digits", verb, hermes.FlagSSHOwnerNonce, o.SSHOwnerNonce)
	}
	if o.Port < 0 || o.Port > 65535 {
		return o, fmt.Errorf("%s: --port %d out of range", verb, o.Port)
	}
	if o.ChildrenAfter < 0 {
		return o, fmt.Errorf("%s: --children-after %v is negative", verb, o.ChildrenAfter)
	}
	return o, nil
}

func addFaultFlags(fs *flag.FlagSet, o *Options) {
	fs.DurationVar(&o.StartDelay, "start-delay", 0, "fault: wait this long before listening")
	fs.BoolVar(&o.IgnoreSIGTERM, "ignore-sigterm", false, "fault: catch and ignore SIGTERM and SIGINT")
	fs.DurationVar(&o.CrashAfter, "crash-after", 0, "fault: exit with --exit-code (default 1) this long after becoming ready")
	fs.IntVar(&o.ExitCode, "exit-code", -1, "fault: exit code; alone, exit with it before becoming ready")
	fs.IntVar(&o.SpawnChildren, "spawn-children", 0, "fault: start N child processes in the backend's process group")
	fs.IntVar(&o.SpawnSetsidChildren, "spawn-setsid-children", 0, "fault: start N children in new sessions (like MCP stdio servers)")
	fs.DurationVar(&o.ChildrenAfter, "children-after", 0, "fault: start the --spawn-*children this long after binding, like Hermes' MCP servers (default: before the READY line)")
	fs.DurationVar(&o.LeakChildrenEvery, "leak-children-every", 0, "fault: start a new identical child this often and never stop the old ones")
	fs.DurationVar(&o.LeakFDsEvery, "leak-fds-every", 0, "fault: open a file descriptor this often and never close it")
	fs.DurationVar(&o.DaemonizeEvery, "daemonize-every", 0, "fault: this often, start a child that double-forks and calls setsid with an empty environment, leaving an idle daemon")
	fs.StringVar(&o.DaemonLabel, "daemon-label", "", "with --daemonize-every: a label for the daemons' command lines (--label)")
	fs.BoolVar(&o.ScrubChildEnv, "scrub-child-env", false, "fault: start children with only HOME and PATH in their environment, like MCP stdio servers")
	fs.Func("keep-child-env", "with --scrub-child-env: also keep these variables (comma-separated names)", func(v string) error {
		o.KeepChildEnv = append(o.KeepChildEnv, strings.Split(v, ",")...)
		return nil
	})
	fs.DurationVar(&o.ParentPoll, "parent-poll", 0, "baseline: notice parent death only by polling getppid() this often, like Hermes (default: exit notification + lifeline)")
	fs.BoolVar(&o.NoParentWatch, "no-parent-watch", false, "baseline: ignore "+hermes.EnvParentPID+" entirely")
}

func printUsage(fs *flag.FlagSet, verb Verb, w io.Writer) {
	if verb == VerbDashboard {
		fmt.Fprintln(w, "usage: hermes-desktop dashboard [--no-open] [--host H] [--port N] [--public-health] [fault flags]")
		fmt.Fprintln(w, "\nThe built-in backend with its page, standing in for `hermes dashboard`: prints "+hermes.DashboardReadyPrefix+"N")
		fmt.Fprintln(w, "when listening, serves the API and, at /, a page carrying the session token. It never opens a browser.")
	} else {
		fmt.Fprintln(w, "usage: hermes-desktop serve [--host H] [--port N] [--public-health] [fault flags]")
		fmt.Fprintln(w, "\nThe built-in backend, headless like `hermes serve`: prints "+hermes.ServeReadyPrefix+"N when listening and serves the API.")
	}
	fmt.Fprintln(w, "Every "+hermes.APIPrefix+"* path outside Hermes' public list needs the session token ($"+hermes.EnvSessionToken+", else random):")
	fmt.Fprintln(w, "header "+hermes.SessionTokenHeader+" or Authorization: Bearer.")
	fmt.Fprintln(w, "Follows "+hermes.EnvParentPID+" (+ marker and nonce) and exits when that process dies.")
	fs.PrintDefaults()
}
