package cli

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"hermes-desktop/app/lifecycle"
	"hermes-desktop/backend"
	"hermes-desktop/backend/corebin"
	"hermes-desktop/backend/handoff"
	"hermes-desktop/backend/hermes"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/logs"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cmdline"
	"hermes-desktop/platform/envflag"
	"hermes-desktop/watchdog"
)

// runOptions are the flags of `run`; each has an environment variable.
type runOptions struct {
	headless     bool
	stateDir     string
	backendCmd   string
	readyRegex   string
	healthPath   string
	grace        time.Duration
	startTimeout time.Duration
	minOrphanAge time.Duration
	noShim       bool
	containment  string
	noBootReap   bool
	logLevel     string

	// restartWindow is how far back the crash-loop breaker counts a
	// backend's unexpected exits.
	restartWindow time.Duration
	// Leak guard.
	sampleInterval time.Duration
	maxDuplicates  int
	fdRestart      bool
	nofileFloor    int
	// Self-update.
	updateFeed     string
	updateAuto     bool
	healthWindow   time.Duration
	updateInterval time.Duration
	// adoptFD is the handoff state pipe a predecessor gives an adopting
	// successor (hidden: only a handoff sets it).
	adoptFD int
	// explicit maps the options given by flag or environment variable to
	// how they were given ("--grace" or watchdog.EnvGrace): those win
	// over the saved settings (config.json).
	explicit map[string]string
	// Not flags: what main compiled in (Program), and the whole command
	// line, which a handoff's successor is started with.
	version    string
	updateKeys []string
	argv       []string
}

// settingsEnv maps the options that have a saved setting to their
// environment variables.
var settingsEnv = map[string]string{
	"backend-cmd":            "HERMES_DESKTOP_BACKEND_CMD",
	"ready-regex":            "HERMES_DESKTOP_READY_REGEX",
	"health-path":            "HERMES_DESKTOP_HEALTH_PATH",
	"grace":                  watchdog.EnvGrace,
	"min-orphan-age":         "HERMES_DESKTOP_MIN_ORPHAN_AGE",
	"sample-interval":        "HERMES_DESKTOP_SAMPLE_INTERVAL",
	"max-duplicate-children": "HERMES_DESKTOP_MAX_DUPLICATE_CHILDREN",
	"restart-on-fd-pressure": "HERMES_DESKTOP_RESTART_ON_FD_PRESSURE",
	"nofile-soft-limit":      "HERMES_DESKTOP_NOFILE_SOFT_LIMIT",
	"update-feed":            "HERMES_DESKTOP_UPDATE_FEED",
	"update-automatically":   "HERMES_DESKTOP_UPDATE_AUTOMATICALLY",
}

func parseRunFlags(args []string, stderr io.Writer) (runOptions, error) {
	var o runOptions
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: hermes-desktop run [--headless] [flags]")
		fs.PrintDefaults()
	}
	fs.BoolVar(&o.headless, "headless", envflag.Bool("HERMES_DESKTOP_HEADLESS"), "run without a window (env HERMES_DESKTOP_HEADLESS)")
	fs.StringVar(&o.stateDir, "state-dir", "", "state directory (env HERMES_DESKTOP_STATE_DIR; default $"+hermes.EnvHome+"/desktop)")
	fs.StringVar(&o.backendCmd, "backend-cmd", os.Getenv("HERMES_DESKTOP_BACKEND_CMD"), "backend command line, quoted as in the system's shell (env HERMES_DESKTOP_BACKEND_CMD; default hermes serve, else the built-in backend)")
	fs.StringVar(&o.readyRegex, "ready-regex", os.Getenv("HERMES_DESKTOP_READY_REGEX"), "regex whose first group is the port, matched on the backend's output (env HERMES_DESKTOP_READY_REGEX)")
	fs.StringVar(&o.healthPath, "health-path", os.Getenv("HERMES_DESKTOP_HEALTH_PATH"), "health check path (env HERMES_DESKTOP_HEALTH_PATH; default "+runspec.DefaultHealthPath+")")
	fs.DurationVar(&o.grace, "grace", envflag.Duration(watchdog.EnvGrace, backend.DefaultGrace), "time a backend has to exit once asked to stop (SIGTERM; CTRL_BREAK on Windows) before it is killed (env "+watchdog.EnvGrace+")")
	fs.DurationVar(&o.startTimeout, "start-timeout", envflag.Duration("HERMES_DESKTOP_START_TIMEOUT", backend.DefaultStartTimeout), "time a backend has to become ready (env HERMES_DESKTOP_START_TIMEOUT)")
	fs.DurationVar(&o.restartWindow, "restart-window", envflag.Duration("HERMES_DESKTOP_RESTART_WINDOW", backend.DefaultRestartWindow), "a backend that exits unexpectedly 4 times within this window is failed, not restarted (env HERMES_DESKTOP_RESTART_WINDOW)")
	fs.DurationVar(&o.minOrphanAge, "min-orphan-age", envflag.Duration("HERMES_DESKTOP_MIN_ORPHAN_AGE", backend.DefaultMinOrphanAge), "minimum age of an unrecorded orphan before the boot reap removes it; 0s: no minimum (env HERMES_DESKTOP_MIN_ORPHAN_AGE)")
	fs.BoolVar(&o.noShim, "no-shim", envflag.Bool("HERMES_DESKTOP_NO_SHIM"), "debugging only: run backends without the watchdog shim, so a killed launcher strands them (env HERMES_DESKTOP_NO_SHIM)")
	fs.StringVar(&o.containment, "containment", envflag.String("HERMES_DESKTOP_CONTAINMENT", "auto"), "what holds each backend's tree: auto (the strongest available), cgroup, systemd-scope, job or process-tree (env HERMES_DESKTOP_CONTAINMENT)")
	fs.BoolVar(&o.noBootReap, "no-boot-reap", envflag.Bool("HERMES_DESKTOP_NO_BOOT_REAP"), "skip the reap of abandoned backends before the first spawn (env HERMES_DESKTOP_NO_BOOT_REAP)")
	fs.DurationVar(&o.sampleInterval, "sample-interval", envflag.Duration("HERMES_DESKTOP_SAMPLE_INTERVAL", leakguard.DefaultSampleInterval), "how often each backend's process tree is sampled (env HERMES_DESKTOP_SAMPLE_INTERVAL)")
	fs.IntVar(&o.maxDuplicates, "max-duplicate-children", envflag.Int("HERMES_DESKTOP_MAX_DUPLICATE_CHILDREN", 0), "keep only the newest N descendants per identical command line; 0 is off (env HERMES_DESKTOP_MAX_DUPLICATE_CHILDREN)")
	fs.BoolVar(&o.fdRestart, "restart-on-fd-pressure", envflag.Bool("HERMES_DESKTOP_RESTART_ON_FD_PRESSURE"), "restart a backend at 95% of its open-file limit (env HERMES_DESKTOP_RESTART_ON_FD_PRESSURE)")
	fs.IntVar(&o.nofileFloor, "nofile-soft-limit", envflag.Int("HERMES_DESKTOP_NOFILE_SOFT_LIMIT", leakguard.DefaultNofileFloor), "floor for the backends' soft open-file limit, never lowering it; 0 is off (env HERMES_DESKTOP_NOFILE_SOFT_LIMIT)")
	fs.StringVar(&o.updateFeed, "update-feed", os.Getenv("HERMES_DESKTOP_UPDATE_FEED"), "the self-update feed's URL, like https://example.com/hermes-desktop/stable.json; no default: updates are off without one (env HERMES_DESKTOP_UPDATE_FEED)")
	fs.BoolVar(&o.updateAuto, "update-automatically", envflag.Bool("HERMES_DESKTOP_UPDATE_AUTOMATICALLY"), "apply a downloaded update when the backends are idle, without asking (env HERMES_DESKTOP_UPDATE_AUTOMATICALLY)")
	fs.DurationVar(&o.healthWindow, "update-health-window", envflag.Duration("HERMES_DESKTOP_UPDATE_HEALTH_WINDOW", backend.DefaultUpdateHealthWindow), "how long a new version must stay healthy after an update before it is kept; a failure inside it rolls back (env HERMES_DESKTOP_UPDATE_HEALTH_WINDOW)")
	fs.DurationVar(&o.updateInterval, "update-check-interval", envflag.Duration("HERMES_DESKTOP_UPDATE_CHECK_INTERVAL", backend.DefaultUpdateCheckInterval), "time between automatic update checks; 0 turns them off (env HERMES_DESKTOP_UPDATE_CHECK_INTERVAL)")
	fs.IntVar(&o.adoptFD, handoff.AdoptFDFlag, -1, "internal: handoff state pipe (set by a handoff in adopt mode)")
	fs.StringVar(&o.logLevel, "log-level", envflag.String("HERMES_DESKTOP_LOG_LEVEL", "info"), "debug, info, warn or error (env HERMES_DESKTOP_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("run: unexpected argument %q", fs.Arg(0))
	}
	o.explicit = map[string]string{}
	fs.Visit(func(f *flag.Flag) { o.explicit[f.Name] = "--" + f.Name })
	for name, env := range settingsEnv {
		if os.Getenv(env) != "" && o.explicit[name] == "" { // a flag wins over its variable
			o.explicit[name] = env
		}
	}
	return o, nil
}

// applyExplicit puts the options the user gave by flag or environment
// variable over cfg, which holds the saved settings: those win. An
// explicit --backend-cmd replaces the saved backends with that one; an
// explicit --ready-regex, --health-path or --grace applies to every
// backend, over a backend's own saved value too (it is never saved).
func (o *runOptions) applyExplicit(cfg *backend.Config) error {
	given := func(name string) bool { return o.explicit[name] != "" }
	if given("backend-cmd") && o.backendCmd != "" {
		argv, err := cmdline.Split(o.backendCmd)
		if err != nil {
			return fmt.Errorf("--backend-cmd: %w", err)
		}
		cfg.Backends = []runspec.Spec{{Command: argv}}
	}
	// The same for a backend added in the window later (Launcher.AddBackend).
	cfg.Explicit = func(spec *runspec.Spec) {
		if given("ready-regex") {
			spec.ReadyRegex = o.readyRegex
		}
		if given("health-path") {
			spec.HealthPath = o.healthPath
		}
		if given("grace") {
			spec.Grace = o.grace
		}
		spec.StartTimeout = o.startTimeout
	}
	for i := range cfg.Backends {
		cfg.Explicit(&cfg.Backends[i])
	}
	if given("min-orphan-age") {
		cfg.MinOrphanAge = new(o.minOrphanAge) // 0s given: no minimum
	}
	if given("sample-interval") {
		cfg.LeakGuard.SampleInterval = o.sampleInterval
	}
	if given("max-duplicate-children") {
		cfg.LeakGuard.MaxDuplicateChildren = o.maxDuplicates
	}
	if given("restart-on-fd-pressure") {
		cfg.LeakGuard.RestartOnFDPressure = o.fdRestart
	}
	if given("nofile-soft-limit") {
		cfg.LeakGuard.NofileSoftLimit = settings.NofileFloor(o.nofileFloor)
	}
	if given("update-feed") {
		if o.updateFeed != "" {
			if err := settings.ValidateFeedURL(o.updateFeed); err != nil {
				return fmt.Errorf("--update-feed: %w", err)
			}
		}
		cfg.UpdateFeed, cfg.UpdateFeedFrom = o.updateFeed, o.explicit["update-feed"]
	}
	if given("update-automatically") {
		cfg.UpdateAutomatically, cfg.UpdateAutomaticallyFrom = o.updateAuto, o.explicit["update-automatically"]
	}
	cfg.UpdateHealthWindow = o.healthWindow
	cfg.UpdateCheckInterval = o.updateInterval
	if o.updateInterval == 0 {
		cfg.UpdateCheckInterval = -1 // 0 on the command line: no automatic checks
	}
	return nil
}

// config turns the flags and the saved settings into a launcher
// configuration.
func (o runOptions) config(stdout, stderr io.Writer) (_ backend.Config, closeLog func(), err error) {
	stateDir, err := resolveStateDir(o.stateDir)
	if err != nil {
		return backend.Config{}, nil, err
	}
	// Checked before config.json is read from it: a hostile state dir must
	// not feed us settings.
	if err := lockfile.EnsureDir(stateDir); err != nil {
		return backend.Config{}, nil, err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return backend.Config{}, nil, fmt.Errorf("--log-level: %w", err)
	}
	logTo, closeLog := launcherLog(stateDir, stderr)
	defer func() {
		if err != nil {
			closeLog()
			closeLog = nil
		}
	}()
	self, containment, err := o.checked()
	if err != nil {
		return backend.Config{}, nil, err
	}
	saved, notice := settings.Load(stateDir)
	cfg := backend.Config{
		StateDir:    stateDir,
		Self:        self,
		NoShim:      o.noShim,
		Containment: containment,
		NoBootReap:  o.noBootReap,
		Args:        successorArgs(o.argv),
		HandoffWait: envflag.Duration(handoff.EnvWait, 0),
		Version:     o.version,
		Logger:      slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: level})),
		Announce:    stdout,
		Notices:     nonEmpty(notice),
		UpdateKeys:  o.updateKeys,
		// A flag, not a setting: a test shortens it, so that a crash loop
		// and start timeouts spaced wider than it are told apart in seconds.
		RestartWindow: o.restartWindow,
	}
	cfg.LocateCore = func() string { return locateCore(stateDir, o.version, cfg.Logger) }
	// One merge path: the saved settings (already validated), then what
	// the user gave explicitly.
	if err := cfg.ApplySettings(saved); err != nil {
		return backend.Config{}, nil, err
	}
	if err := o.applyExplicit(&cfg); err != nil {
		return backend.Config{}, nil, err
	}
	return cfg, closeLog, nil
}

// checked is our own executable and the containment asked for, once the
// flags that need more than parsing are checked.
func (o runOptions) checked() (string, model.Containment, error) {
	self, err := os.Executable()
	if err != nil {
		return "", "", fmt.Errorf("find own executable: %w", err)
	}
	if o.restartWindow <= 0 {
		return "", "", fmt.Errorf("--restart-window: %v is not a positive duration", o.restartWindow)
	}
	containment, err := model.ParseContainment(o.containment)
	if err != nil {
		return "", "", fmt.Errorf("--containment: %w", err)
	}
	return self, containment, nil
}

// announcement says what each backend will run and why, from the
// configuration as the flags and settings made it (before the launcher
// fills in its defaults). It is printed once this instance holds the state
// dir: a second launch, which only brings the first one's window forward,
// says nothing of the sort.
func announcement(cfg backend.Config, core string) string {
	var b strings.Builder
	for _, spec := range cfg.Backends {
		fmt.Fprintf(&b, "using backend: %s\n", describeBackend(cmp.Or(core, cfg.Self), spec))
	}
	return b.String()
}

// locateCore finds the small executable a desktop build starts its shims
// and built-in backend from (backend/corebin); "" (the app's own
// executable) for a plain build, or when the core cannot be used, which
// is logged: it only makes each start slower.
func locateCore(stateDir, version string, log *slog.Logger) string {
	core, err := corebin.Locate(stateDir, version)
	if errors.Is(err, corebin.ErrNoPayload) {
		return ""
	}
	if err != nil {
		log.Warn("shims start from the app's own executable", "err", err)
		return ""
	}
	log.Debug("shims start from the core", "core", core)
	return core
}

// describeBackend says what a backend will run and why, in one line.
func describeBackend(self string, spec runspec.Spec) string {
	name := spec.Name
	if name == "" {
		name = backend.DefaultName
	}
	kind := spec.Kind
	if kind == "" {
		kind = settings.KindDashboard
	}
	switch {
	case spec.Host != "" && len(spec.Command) > 0:
		return fmt.Sprintf("%s: on %s: %s (configured)", name, spec.Host, cmdline.Join(spec.Command))
	case spec.Host != "":
		argv := runspec.ResolveRemoteCommand(kind, spec.Args)
		return fmt.Sprintf("%s: on %s: %s (hermes there, else the built-in backend)", name, spec.Host, cmdline.Join(argv))
	case len(spec.Command) > 0:
		return fmt.Sprintf("%s: %s (configured)", name, cmdline.Join(spec.Command))
	}
	argv, why := runspec.ResolveCommand(self, kind, spec.Args)
	return fmt.Sprintf("%s: %s (%s)", name, cmdline.Join(argv), why)
}

// cmdRun runs the launcher; argv is the whole command line, args its
// flags.
func cmdRun(args, argv []string, p Program, stdout, stderr io.Writer) int {
	opts, err := parseRunFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return ExitUsage
	}
	opts.version, opts.updateKeys, opts.argv = p.Version, p.UpdateKeys, argv
	cfg, closeLog, err := opts.config(stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return ExitError
	}
	defer closeLog()
	if opts.adoptFD >= 0 {
		cfg.AdoptFrom = handoff.InheritFile(opts.adoptFD, "handoff-state")
	}
	os.Unsetenv(handoff.EnvWait) // for us only, not for the backends
	if err := instance.EnterLauncherJob(); err != nil {
		fmt.Fprintln(stderr, "hermes-desktop: warning:", err)
	}
	life := lifecycle.Options{
		Claimed: func(core string) { fmt.Fprint(stdout, announcement(cfg, core)) },
		Started: func() { injectFaults(cfg) },
	}
	if !opts.headless {
		ok, why := false, "this build has no GUI (build with 'make gui' for the window)"
		if p.GUIAvailable != nil && p.Window != nil {
			ok, why = p.GUIAvailable()
		}
		if ok {
			cfg.UI = "gui"
			life.Window = func(l *backend.Launcher) lifecycle.Window { return p.Window(l, cfg.Self) }
		} else {
			fmt.Fprintf(stdout, "running headless: %s\n", why)
		}
	}
	if err := lifecycle.Run(cfg, stdout, stderr, life); err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return ExitError
	}
	return ExitOK
}

// launcherLog is where the launcher logs: its stderr and <state>/launcher.log
// (rotated), so that what a window started from the desktop met (a failed
// handoff, an update rolled back) is on disk for a person and for
// `diagnose`. A successor's stderr is that file already: it logs once.
func launcherLog(stateDir string, stderr io.Writer) (io.Writer, func()) {
	path := logs.LauncherPath(stateDir)
	file := logs.OpenFile(path)
	if f, ok := stderr.(*os.File); ok && sameFile(f, path) {
		return file, file.Close
	}
	return io.MultiWriter(file, stderr), file.Close // the file first: a closed stderr must not cost it
}

func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// successorArgs is our command line without the handoff-only flag, which
// must not be passed on.
func successorArgs(a []string) []string {
	var out []string
	for i := 0; i < len(a); i++ {
		if a[i] == "--"+handoff.AdoptFDFlag || a[i] == "-"+handoff.AdoptFDFlag {
			i++
			continue
		}
		if strings.HasPrefix(a[i], "--"+handoff.AdoptFDFlag+"=") || strings.HasPrefix(a[i], "-"+handoff.AdoptFDFlag+"=") {
			continue
		}
		out = append(out, a[i])
	}
	return out
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

func resolveStateDir(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	return backend.DefaultStateDir()
}
