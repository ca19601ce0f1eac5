package backend

import (
	"errors"
	"fmt"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/remote"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/hermes"
)

// Defaults, in one place.
const (
	DefaultName         = runspec.DefaultName
	DefaultReadyRegex   = runspec.DefaultReadyRegex
	DefaultHealthPath   = runspec.DefaultHealthPath
	DefaultGrace        = runspec.DefaultGrace
	DefaultStartTimeout = runspec.DefaultStartTimeout
	DefaultMinOrphanAge = reap.DefaultMinOrphanAge
	// Restart policy seen in Hermes: at most 3 respawns per 120 s.
	DefaultMaxRestarts   = 3
	DefaultRestartWindow = 120 * time.Second
	// Self-update.
	DefaultUpdateHealthWindow  = 60 * time.Second
	DefaultUpdateCheckInterval = 4 * time.Hour
)

// Config holds every setting of one launcher instance. Fill it, then call
// Open; Open applies the defaults.
type Config struct {
	// StateDir keeps locks, records, logs and the control socket; required.
	StateDir string
	// HermesHome is given to backends as HERMES_HOME; "" means
	// $HERMES_HOME, else ~/.hermes.
	HermesHome string
	// Self is the hermes-desktop executable: what an update replaces and a
	// handoff starts; "" means os.Executable().
	Self string
	// Core is the executable for the processes the launcher starts from its
	// own code, the watchdog shim and the built-in backend: a desktop build
	// gives its small plain build here (backend/corebin); "" means Self.
	Core string
	// LocateCore, when set, finds Core at Prepare instead of before Open:
	// unpacking and checking the core costs 20 ms, 100 ms on a fresh state
	// dir, which a window can spend opening meanwhile (lifecycle). It
	// returns "" for Self. Open calls it at once for a successor that
	// adopts backends: their handover is matched against resolved commands.
	LocateCore func() string
	// Backends to run; empty means one default backend.
	Backends []runspec.Spec
	// Explicit lays the options given by flag or environment variable
	// over a backend added while the launcher runs (AddBackend), as the
	// caller laid them over Backends: they win over saved settings, for
	// every backend. nil means none were given.
	Explicit func(spec *runspec.Spec)
	// NoShim starts backends as direct children, without the watchdog shim.
	// For debugging only: a launcher that dies by SIGKILL then strands them.
	NoShim bool
	// Containment asks for what holds each backend's tree (Containment's
	// constants); "" means the strongest the host offers: a cgroup where
	// the launcher's own is writable, else a systemd user scope, else the
	// process tree (Linux), a job object (Windows), the process tree
	// (macOS).
	Containment model.Containment
	// MinOrphanAge is how old an unrecorded orphan must be before the boot
	// reaper removes it: nil means 180 seconds, a pointer to 0 no minimum
	// (`run --min-orphan-age 0s`; the saved setting cannot go below 1 s).
	MinOrphanAge *time.Duration
	// NoBootReap skips the reap before the first spawn.
	NoBootReap bool
	// RestartPolicy bounds automatic restarts.
	RestartPolicy
	// LeakGuard configures the tree sampler, its warnings and policies;
	// its zero value takes leakguard's defaults.
	LeakGuard leakguard.Config
	// HandoffOptions say how this launcher was handed over to, and how it
	// hands over.
	HandoffOptions
	// UI is "headless" or "gui", reported in status (its "mode").
	UI string
	// Remote configures backends on other hosts.
	Remote remote.Config
	// Shown is what status shows of the launcher from the start.
	Shown
	// Logger receives the launcher's own log; nil discards it.
	Logger *slog.Logger
	// Announce receives one line per user-visible event ("backend X ready
	// ..."); nil discards them.
	Announce io.Writer
	// UpdateOptions configure the self-update.
	UpdateOptions
}

// RestartPolicy bounds automatic restarts.
type RestartPolicy struct {
	// MaxRestarts restarts within RestartWindow at most; 0 means 3 within
	// 120 seconds.
	MaxRestarts   int
	RestartWindow time.Duration
}

// HandoffOptions are what a handoff between two launchers needs.
type HandoffOptions struct {
	// Args is the command line the launcher was started with (without the
	// program name): a handoff starts its successor with the same one.
	Args []string
	// HandoffWait, when set, makes Open wait this long for the single-
	// instance lock instead of failing: the predecessor is letting go.
	HandoffWait time.Duration
	// AdoptFrom, when set, is the pipe a predecessor writes the handoff
	// state to: Open adopts its running backends (adopt mode).
	AdoptFrom *os.File
	// LauncherJob is the kill-on-close job this process lives in
	// (Windows: a new one, or the one an adopt-mode predecessor handed
	// down), which a handoff passes on; nil for none.
	LauncherJob *instance.LauncherJob
}

// Shown is what the launcher shows of itself from the start.
type Shown struct {
	// Version is reported in status.
	Version string
	// Notices are shown to the user from the start (a settings file that
	// was set aside, say).
	Notices []string
}

// UpdateOptions configure the self-update (see backend/selfupdate).
type UpdateOptions struct {
	// UpdateFeed is the feed's manifest URL; "" means updates are off:
	// there is no default feed.
	UpdateFeed string
	// UpdateKeys are the trusted minisign public keys, compiled in (main's
	// -X flags); none means updates are off.
	UpdateKeys []string
	// UpdateAutomatically applies a downloaded update, when the backends
	// are idle, without asking; false waits for "Restart to update".
	UpdateAutomatically bool
	// UpdateFeedFrom and UpdateAutomaticallyFrom name the flag or
	// environment variable that set UpdateFeed and UpdateAutomatically, as
	// the user wrote it ("--update-feed", "HERMES_DESKTOP_UPDATE_FEED"):
	// such a value wins over the settings, also over settings saved while
	// the app runs. "" means the value is the settings' (or the default).
	UpdateFeedFrom          string
	UpdateAutomaticallyFrom string
	// UpdateHealthWindow is how long a new version must stay up after it
	// took over before it is kept; 0 means 60 seconds.
	UpdateHealthWindow time.Duration
	// UpdateCheckInterval is the time between automatic checks (the first
	// comes 30 to 60 seconds after start); 0 means 4 hours, negative turns
	// automatic checks off.
	UpdateCheckInterval time.Duration
}

// HermesHome returns $HERMES_HOME, else ~/.hermes.
func HermesHome() (string, error) {
	if h := os.Getenv(hermes.EnvHome); h != "" {
		return h, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("backend: find home directory for %s: %w", hermes.EnvHome, err)
	}
	return filepath.Join(home, hermes.HomeDirName), nil
}

// DefaultStateDir returns $HERMES_DESKTOP_STATE_DIR, else $HERMES_HOME/desktop.
func DefaultStateDir() (string, error) {
	if d := os.Getenv("HERMES_DESKTOP_STATE_DIR"); d != "" {
		return d, nil
	}
	home, err := HermesHome()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "desktop"), nil
}

func (c *Config) applyDefaults() error {
	if c.StateDir == "" {
		return errors.New("backend: no state dir")
	}
	abs, err := filepath.Abs(c.StateDir)
	if err != nil {
		return fmt.Errorf("backend: state dir: %w", err)
	}
	c.StateDir = abs
	if c.HermesHome == "" {
		if c.HermesHome, err = HermesHome(); err != nil {
			return err
		}
	}
	if c.Self == "" {
		if c.Self, err = os.Executable(); err != nil {
			return fmt.Errorf("backend: find own executable: %w", err)
		}
	}
	if c.Core == "" {
		c.Core = c.Self
	}
	if err := c.applyBackendDefaults(); err != nil {
		return err
	}
	if c.MinOrphanAge == nil {
		c.MinOrphanAge = new(DefaultMinOrphanAge)
	}
	if *c.MinOrphanAge < 0 {
		return fmt.Errorf("backend: minimum orphan age %v is negative", *c.MinOrphanAge)
	}
	if err := c.LeakGuard.Validate(); err != nil {
		return fmt.Errorf("backend: %w", err)
	}
	if c.MaxRestarts == 0 {
		c.MaxRestarts = DefaultMaxRestarts
	}
	if c.RestartWindow == 0 {
		c.RestartWindow = DefaultRestartWindow
	}
	if c.UI == "" {
		c.UI = "headless"
	}
	if c.UpdateHealthWindow <= 0 {
		c.UpdateHealthWindow = DefaultUpdateHealthWindow
	}
	if c.UpdateCheckInterval == 0 {
		c.UpdateCheckInterval = DefaultUpdateCheckInterval
	}
	c.LeakGuard = c.LeakGuard.WithDefaults()
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Announce == nil {
		c.Announce = io.Discard
	}
	return nil
}

// applyBackendDefaults fills in each backend's defaults (one backend, the
// default, when none is given) and refuses two of the same name.
func (c *Config) applyBackendDefaults() error {
	if len(c.Backends) == 0 {
		c.Backends = []runspec.Spec{{}}
	}
	seen := map[string]bool{}
	for i := range c.Backends {
		if err := c.Backends[i].ApplyDefaults(c.Core); err != nil {
			return err
		}
		if seen[c.Backends[i].Name] {
			return fmt.Errorf("backend: two backends are named %q", c.Backends[i].Name)
		}
		seen[c.Backends[i].Name] = true
	}
	return nil
}
