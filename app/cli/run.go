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
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/remote"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cmdline"
	"hermes-desktop/platform/envflag"
	"hermes-desktop/watchdog/remotewd"
)

// runOptions are the flags of `run`, each from its row of settings.Options
// (which names its environment variable too).
type runOptions struct {
	// values holds each flag's value by name: a *bool, *string, *int or
	// *time.Duration, as its option's Type says.
	values map[string]any
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

// flagDefaults are the defaults of the flags whose default is not their
// type's zero value (nor their environment variable's value).
var flagDefaults = map[string]any{
	"grace":                 backend.DefaultGrace,
	"start-timeout":         backend.DefaultStartTimeout,
	"restart-window":        backend.DefaultRestartWindow,
	"min-orphan-age":        backend.DefaultMinOrphanAge,
	"containment":           "auto",
	"netns":                 remotewd.NetnsAuto,
	"sample-interval":       leakguard.DefaultSampleInterval,
	"nofile-soft-limit":     leakguard.DefaultNofileFloor,
	"update-health-window":  backend.DefaultUpdateHealthWindow,
	"update-check-interval": backend.DefaultUpdateCheckInterval,
	handoff.AdoptFDFlag:     -1, // none: only a handoff sets it
	handoff.AdoptJobFlag:    -1, // none: only a handoff sets it (Windows)
	"log-level":             "info",
}

// str, dur, num and on read a flag's value by name.
func (o runOptions) str(name string) string        { return *o.values[name].(*string) }
func (o runOptions) dur(name string) time.Duration { return *o.values[name].(*time.Duration) }
func (o runOptions) num(name string) int           { return *o.values[name].(*int) }
func (o runOptions) on(name string) bool           { return *o.values[name].(*bool) }

// defineFlags defines a flag for each option that has one, its default
// read from its environment variable, and returns where each value lands.
func defineFlags(fs *flag.FlagSet) map[string]any {
	values := map[string]any{}
	for _, opt := range settings.Options {
		if opt.Flag == "" {
			continue
		}
		env := opt.Env
		if opt.NoEnvDefault {
			env = ""
		}
		def := flagDefaults[opt.Flag]
		switch opt.Type {
		case settings.TypeBool:
			values[opt.Flag] = fs.Bool(opt.Flag, envflag.Bool(env), opt.Help())
		case settings.TypeText:
			d, _ := def.(string)
			values[opt.Flag] = fs.String(opt.Flag, envflag.String(env, d), opt.Help())
		case settings.TypeInt:
			d, _ := def.(int)
			values[opt.Flag] = fs.Int(opt.Flag, envflag.Int(env, d), opt.Help())
		case settings.TypeDuration:
			d, _ := def.(time.Duration)
			values[opt.Flag] = fs.Duration(opt.Flag, envflag.Duration(env, d), opt.Help())
		}
	}
	return values
}

func parseRunFlags(args []string, stderr io.Writer) (runOptions, error) {
	var o runOptions
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: hermes-desktop run [--headless] [flags]")
		fs.PrintDefaults()
	}
	o.values = defineFlags(fs)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("run: unexpected argument %q", fs.Arg(0))
	}
	o.explicit = map[string]string{}
	fs.Visit(func(f *flag.Flag) { o.explicit[f.Name] = "--" + f.Name })
	// A saved option's variable wins over config.json as its flag does.
	for _, opt := range settings.Options {
		if opt.Field != "" && opt.Flag != "" && opt.Env != "" && os.Getenv(opt.Env) != "" && o.explicit[opt.Flag] == "" {
			o.explicit[opt.Flag] = opt.Env // a flag wins over its variable
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
	if given("backend-cmd") && o.str("backend-cmd") != "" {
		argv, err := cmdline.Split(o.str("backend-cmd"))
		if err != nil {
			return fmt.Errorf("--backend-cmd: %w", err)
		}
		cfg.Backends = []runspec.Spec{{Command: argv}}
	}
	// The same for a backend added in the window later (Launcher.AddBackend).
	cfg.Explicit = func(spec *runspec.Spec) {
		if given("ready-regex") {
			spec.ReadyRegex = o.str("ready-regex")
		}
		if given("health-path") {
			spec.HealthPath = o.str("health-path")
		}
		if given("grace") {
			spec.Grace = o.dur("grace")
		}
		spec.StartTimeout = o.dur("start-timeout")
	}
	for i := range cfg.Backends {
		cfg.Explicit(&cfg.Backends[i])
	}
	if given("min-orphan-age") {
		cfg.MinOrphanAge = new(o.dur("min-orphan-age")) // 0s given: no minimum
	}
	if given("sample-interval") {
		cfg.LeakGuard.SampleInterval = o.dur("sample-interval")
	}
	if given("max-duplicate-children") {
		cfg.LeakGuard.MaxDuplicateChildren = o.num("max-duplicate-children")
	}
	if given("restart-on-fd-pressure") {
		cfg.LeakGuard.RestartOnFDPressure = o.on("restart-on-fd-pressure")
	}
	if given("nofile-soft-limit") {
		cfg.LeakGuard.NofileSoftLimit = settings.NofileFloor(o.num("nofile-soft-limit"))
	}
	if given("update-feed") {
		if o.str("update-feed") != "" {
			if err := settings.ValidateFeedURL(o.str("update-feed")); err != nil {
				return fmt.Errorf("--update-feed: %w", err)
			}
		}
		cfg.UpdateFeed, cfg.UpdateFeedFrom = o.str("update-feed"), o.explicit["update-feed"]
	}
	if given("update-automatically") {
		cfg.UpdateAutomatically, cfg.UpdateAutomaticallyFrom = o.on("update-automatically"), o.explicit["update-automatically"]
	}
	cfg.UpdateHealthWindow = o.dur("update-health-window")
	cfg.UpdateCheckInterval = o.dur("update-check-interval")
	if o.dur("update-check-interval") == 0 {
		cfg.UpdateCheckInterval = -1 // 0 on the command line: no automatic checks
	}
	return nil
}

// config turns the flags and the saved settings into a launcher
// configuration.
func (o runOptions) config(stdout, stderr io.Writer) (_ backend.Config, closeLog func(), err error) {
	stateDir, err := resolveStateDir(o.str("state-dir"))
	if err != nil {
		return backend.Config{}, nil, err
	}
	// Checked before config.json is read from it: a hostile state dir must
	// not feed us settings.
	if err := lockfile.EnsureDir(stateDir); err != nil {
		return backend.Config{}, nil, err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.str("log-level"))); err != nil {
		return backend.Config{}, nil, fmt.Errorf("--log-level: %w", err)
	}
	logTo, closeLog := launcherLog(stateDir, stderr)
	defer func() {
		if err != nil {
			closeLog()
			closeLog = nil
		}
	}()
	self, containment, netns, err := o.checked()
	if err != nil {
		return backend.Config{}, nil, err
	}
	saved, notice := settings.Load(stateDir)
	cfg := backend.Config{
		StateDir:    stateDir,
		Self:        self,
		NoShim:      o.on("no-shim"),
		Containment: containment,
		NoBootReap:  o.on("no-boot-reap"),
		Remote:      remote.Config{Netns: netns},
		HandoffOptions: backend.HandoffOptions{
			Args:        successorArgs(o.argv),
			HandoffWait: envflag.Duration(handoff.EnvWait, 0),
		},
		Shown:    backend.Shown{Version: o.version, Notices: nonEmpty(notice)},
		Logger:   slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: level})),
		Announce: stdout,
		// A flag, not a setting: a test shortens it, so that a crash loop
		// and start timeouts spaced wider than it are told apart in seconds.
		RestartPolicy: backend.RestartPolicy{RestartWindow: o.dur("restart-window")},
	}
	cfg.UpdateKeys = o.updateKeys
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

// checked is our own executable, the containment and the remote
// backends' isolation asked for, once the flags that need more than
// parsing are checked.
func (o runOptions) checked() (self string, c model.Containment, netns string, err error) {
	if self, err = os.Executable(); err != nil {
		return "", "", "", fmt.Errorf("find own executable: %w", err)
	}
	if o.dur("restart-window") <= 0 {
		return "", "", "", fmt.Errorf("--restart-window: %v is not a positive duration", o.dur("restart-window"))
	}
	if c, err = model.ParseContainment(o.str("containment")); err != nil {
		return "", "", "", fmt.Errorf("--containment: %w", err)
	}
	if netns = o.str("netns"); netns != remotewd.NetnsAuto && netns != remotewd.NetnsOff {
		return "", "", "", fmt.Errorf("--netns: %q is not %s or %s", netns, remotewd.NetnsAuto, remotewd.NetnsOff)
	}
	return self, c, netns, nil
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
	if opts.num(handoff.AdoptFDFlag) >= 0 {
		cfg.AdoptFrom = handoff.InheritFile(opts.num(handoff.AdoptFDFlag), "handoff-state")
	}
	os.Unsetenv(handoff.EnvWait) // for us only, not for the backends
	job, err := instance.EnterLauncherJob(uintptr(max(opts.num(handoff.AdoptJobFlag), 0)))
	if err != nil && cfg.AdoptFrom != nil {
		// Adopted backends outside our job would die with the
		// predecessor: fail before the commit, and it stays in charge.
		fmt.Fprintln(stderr, "hermes-desktop: handoff:", err)
		return ExitError
	} else if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop: warning:", err)
	}
	cfg.LauncherJob = job
	life := lifecycle.Options{
		Claimed: func(core string) { fmt.Fprint(stdout, announcement(cfg, core)) },
		Started: func() { injectFaults(cfg) },
	}
	if !opts.on("headless") {
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

// successorArgs is our command line without the handoff-only flags, which
// must not be passed on.
func successorArgs(a []string) []string {
	var out []string
	for i := 0; i < len(a); i++ {
		if name, ok := flagName(a[i]); !ok || (name != handoff.AdoptFDFlag && name != handoff.AdoptJobFlag) {
			out = append(out, a[i])
			continue
		}
		if !strings.Contains(a[i], "=") {
			i++ // the value is the next argument
		}
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
