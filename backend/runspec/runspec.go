// Package runspec describes what the launcher runs for one backend: its
// kind, command, ready pattern, health path and timings (Spec), with the
// defaults and the command Hermes' kinds resolve to. It is what settings
// and flags become, and what a run is started from.
package runspec

import (
	"cmp"
	"fmt"
	"os/exec"
	"time"

	"hermes-desktop/backend/settings"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/platform/cmdline"
)

// Defaults of a spec, in one place. The ready pattern and the health path
// are Hermes' (the health check falls back to hermes.StatusPath when
// hermes.HealthPath answers 404, 401 or 403).
const (
	DefaultName         = "default"
	DefaultReadyRegex   = hermes.ReadyRegex
	DefaultHealthPath   = hermes.HealthPath
	DefaultGrace        = 5 * time.Second
	DefaultStartTimeout = 60 * time.Second
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
	// Host is the ssh destination the backend runs on; "" for this
	// machine. Command is then the remote's: a Hermes kind's resolves
	// there (ResolveRemoteCommand).
	Host string `json:"host,omitempty"`
	// Setting is the configured backend the spec came from (FromSetting),
	// saved back as is when the list changes: its own ready pattern,
	// health path and grace, not the shared values it took. Zero for a
	// spec made from flags.
	Setting settings.Backend `json:"-"`
}

// ApplyDefaults fills the zero fields (see each field) and checks the rest;
// self is the hermes-desktop executable, for the built-in backend.
func (s *Spec) ApplyDefaults(self string) error {
	if s.Name == "" {
		s.Name = DefaultName
	}
	if err := settings.ValidateName(s.Name); err != nil {
		return err
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
		if s.Host != "" {
			s.Command = ResolveRemoteCommand(s.Kind, s.Args)
		} else {
			s.Command, _ = ResolveCommand(self, s.Kind, s.Args)
		}
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

// ResolveCommand is the command of a Hermes kind (hermes.LocalArgs):
// `hermes dashboard --no-open --host 127.0.0.1 --port 0` or `hermes serve
// --host 127.0.0.1 --port 0`, plus args, with hermes from PATH; without it, the built-in
// backend's same verb. It says which it chose.
func ResolveCommand(self string, kind settings.Kind, args []string) (argv []string, why string) {
	exe, why := self, "hermes not on PATH: using the built-in backend"
	if path, err := exec.LookPath("hermes"); err == nil {
		exe, why = path, "hermes found on PATH at "+path
	}
	argv = append([]string{exe}, hermes.LocalArgs(verb(kind))...)
	return append(argv, args...), why
}

// ResolveRemoteCommand is the command of a Hermes kind on another host:
// `hermes serve --isolated --host 127.0.0.1 --port 0` or `hermes dashboard
// --no-open --host 127.0.0.1 --port 0`, plus args. The remote watchdog
// finds hermes there (or falls back to its own built-in backend) and adds
// Hermes' SSH flags to a serve (--ssh-session-token-file, --ssh-owner-nonce).
func ResolveRemoteCommand(kind settings.Kind, args []string) []string {
	argv := append([]string{"hermes"}, hermes.LocalArgs(verb(kind))...)
	if kind == settings.KindServe {
		argv = append(argv[:2], append([]string{hermes.FlagIsolated}, argv[2:]...)...)
	}
	return append(argv, args...)
}

// verb is the hermes verb that runs a Hermes kind.
func verb(kind settings.Kind) string {
	switch kind {
	case settings.KindDashboard:
		return hermes.VerbDashboard
	case settings.KindServe:
		return hermes.VerbServe
	}
	return string(kind)
}

// DesktopOwned says whether the backend gets the desktop's marks
// (HERMES_DESKTOP=1 and our session token): a dashboard must not, or
// Hermes hides it from host discovery and it never serves its own page.
func (s *Spec) DesktopOwned() bool { return s.Kind != settings.KindDashboard }

// ServesPage says whether the backend has a page a person opens: a
// dashboard (and whatever a custom command serves); `hermes serve` is API
// only.
func (s *Spec) ServesPage() bool { return s.Kind != settings.KindServe }

// FromSetting turns one configured backend into a spec. Its ready
// pattern, health path and grace are its own, or else shared's (the
// settings saved now: a backend added while the app runs takes them at
// once, not at the next start), or else the defaults (ApplyDefaults).
func FromSetting(b settings.Backend, shared settings.Settings) (Spec, error) {
	if err := b.Validate(); err != nil {
		return Spec{}, err
	}
	spec := Spec{Name: b.Name, Kind: b.Kind, Args: b.Args, Disabled: !b.IsEnabled(), Setting: b, Host: b.Host}
	if b.Kind == settings.KindCustom {
		argv, err := cmdline.Split(b.Command)
		if err != nil {
			return Spec{}, fmt.Errorf("backend %s: %w", b.Name, err)
		}
		spec.Command = argv
	}
	grace, err := settings.Duration("grace period", cmp.Or(b.Grace, shared.Grace), 0, 1<<62)
	if err != nil {
		return Spec{}, fmt.Errorf("backend %s: %w", b.Name, err)
	}
	spec.ReadyRegex, spec.HealthPath, spec.Grace = cmp.Or(b.ReadyRegex, shared.ReadyRegex), cmp.Or(b.HealthPath, shared.HealthPath), grace
	return spec, nil
}
