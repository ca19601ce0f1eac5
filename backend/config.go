package backend

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/settings"
	"hermes-desktop/lockfile"
)

// Defaults, in one place.
const (
	DefaultName         = "default"
	DefaultReadyRegex   = `HERMES_(?:BACKEND|DASHBOARD)_READY port=(\d+)`
	DefaultHealthPath   = "/api/health"
	fallbackHealthPath  = "/api/status"
	DefaultGrace        = 5 * time.Second
	DefaultStartTimeout = 60 * time.Second
	DefaultMinOrphanAge = reap.DefaultMinOrphanAge
	// Restart policy seen in Hermes: at most 3 respawns per 120 s.
	DefaultMaxRestarts   = 3
	DefaultRestartWindow = 120 * time.Second
)

// Spec describes one backend. Zero values take the defaults above.
type Spec struct {
	// Name identifies the backend in status, logs and records; "" means
	// "default".
	Name string `json:"name"`
	// Kind is dashboard, serve or custom; "" means custom when Command is
	// set, else dashboard.
	Kind settings.Kind `json:"kind"`
	// Command is the argv to run; empty means Hermes' command for the kind
	// (ResolveCommand), plus Args.
	Command []string `json:"command"`
	// Args are added to a Hermes kind's command (a profile, say).
	Args []string `json:"args,omitempty"`
	// Disabled backends are not started with the launcher; Start starts
	// them.
	Disabled bool `json:"disabled,omitempty"`
	// ReadyRegex finds the port in the backend's output: its first capture
	// group must be the port. "" means the Hermes READY line.
	ReadyRegex string `json:"ready_regex,omitempty"`
	// HealthPath is probed with GET once the port is known; "" means
	// /api/health, falling back to /api/status when that answers 404.
	HealthPath string `json:"health_path,omitempty"`
	// Grace is how long a backend has between SIGTERM and SIGKILL; 0 means
	// five seconds.
	Grace time.Duration `json:"grace,omitempty"`
	// StartTimeout bounds the time to become ready; 0 means 60 seconds.
	StartTimeout time.Duration `json:"start_timeout,omitempty"`
	// Profile is the Hermes profile, recorded for reference.
	Profile string `json:"profile,omitempty"`
}

// Config holds every setting of one launcher instance. Fill it, then call
// Open; Open applies the defaults.
type Config struct {
	// StateDir keeps locks, records, logs and the control socket; required.
	StateDir string
	// HermesHome is given to backends as HERMES_HOME; "" means
	// $HERMES_HOME, else ~/.hermes.
	HermesHome string
	// Self is the hermes-desktop executable (for the watchdog shim and the
	// built-in backend); "" means os.Executable().
	Self string
	// Backends to run; empty means one default backend.
	Backends []Spec
	// NoShim starts backends as direct children, without the watchdog shim.
	// For debugging only: a launcher that dies by SIGKILL then strands them.
	NoShim bool
	// Containment asks for what holds each backend's tree (Containment's
	// constants); "" means the strongest the host offers: a cgroup where
	// the launcher's own is writable, else a systemd user scope, else the
	// process tree (Linux), a job object (Windows), the process tree
	// (macOS).
	Containment Containment
	// MinOrphanAge is how old an unrecorded orphan must be before the boot
	// reaper removes it: nil means 180 seconds, a pointer to 0 no minimum
	// (`run --min-orphan-age 0s`; the saved setting cannot go below 1 s).
	MinOrphanAge *time.Duration
	// NoBootReap skips the reap before the first spawn.
	NoBootReap bool
	// MaxRestarts and RestartWindow bound automatic restarts; 0 means 3
	// within 120 seconds.
	MaxRestarts   int
	RestartWindow time.Duration
	// LeakGuard configures the tree sampler, its warnings and policies;
	// its zero value takes leakguard's defaults.
	LeakGuard leakguard.Config
	// Args is the command line the launcher was started with (without the
	// program name): a handoff starts its successor with the same one.
	Args []string
	// HandoffWait, when set, makes Open wait this long for the single-
	// instance lock instead of failing: the predecessor is letting go.
	HandoffWait time.Duration
	// AdoptFrom, when set, is the pipe a predecessor writes the handoff
	// state to: Open adopts its running backends (adopt mode).
	AdoptFrom *os.File
	// Mode is "headless" or "gui", reported in status.
	Mode string
	// Version is reported in status.
	Version string
	// Logger receives the launcher's own log; nil discards it.
	Logger *slog.Logger
	// Notices are shown to the user from the start (a settings file that
	// was set aside, say).
	Notices []string
	// Announce receives one line per user-visible event ("backend X ready
	// ..."); nil discards them.
	Announce io.Writer
}

// HermesHome returns $HERMES_HOME, else ~/.hermes.
func HermesHome() (string, error) {
	if h := os.Getenv("HERMES_HOME"); h != "" {
		return h, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("backend: find home directory for HERMES_HOME: %w", err)
	}
	return filepath.Join(home, ".hermes"), nil
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
	if len(c.Backends) == 0 {
		c.Backends = []Spec{{}}
	}
	seen := map[string]bool{}
	for i := range c.Backends {
		if err := c.Backends[i].applyDefaults(c.Self); err != nil {
			return err
		}
		if seen[c.Backends[i].Name] {
			return fmt.Errorf("backend: two backends are named %q", c.Backends[i].Name)
		}
		seen[c.Backends[i].Name] = true
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
	if c.Mode == "" {
		c.Mode = "headless"
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

func (s *Spec) applyDefaults(self string) error {
	if s.Name == "" {
		s.Name = DefaultName
	}
	if !lockfile.ValidName(s.Name) {
		return fmt.Errorf("backend: invalid backend name %q: use letters, digits, '.', '_' or '-'", s.Name)
	}
	if s.Kind == "" {
		s.Kind = settings.KindDashboard
		if len(s.Command) > 0 {
			s.Kind = settings.KindCustom
		}
	}
	if len(s.Command) == 0 {
		if s.Kind == settings.KindCustom {
			return fmt.Errorf("backend %s: a custom backend needs a command", s.Name)
		}
		s.Command, _ = ResolveCommand(self, s.Kind, s.Args)
	}
	if s.ReadyRegex == "" {
		s.ReadyRegex = DefaultReadyRegex
	}
	if _, err := settings.CompileReadyRegex(s.ReadyRegex); err != nil {
		return fmt.Errorf("backend %s: %w", s.Name, err)
	}
	if s.HealthPath == "" {
		s.HealthPath = DefaultHealthPath
	}
	if s.HealthPath[0] != '/' {
		return fmt.Errorf("backend: health path %q must start with /", s.HealthPath)
	}
	if s.Grace == 0 {
		s.Grace = DefaultGrace
	}
	if s.StartTimeout == 0 {
		s.StartTimeout = DefaultStartTimeout
	}
	if s.Grace < 0 || s.StartTimeout < 0 {
		return fmt.Errorf("backend %s: negative grace or start timeout", s.Name)
	}
	return nil
}
