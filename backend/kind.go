package backend

import (
	"fmt"
	"os/exec"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/cmdline"
)

// ResolveCommand is the command of a Hermes kind: `hermes dashboard
// --no-open --host 127.0.0.1 --port 0` or `hermes serve --host 127.0.0.1
// --port 0`, plus args, with hermes from PATH; without it, the built-in
// backend's same verb. It says which it chose.
func ResolveCommand(self string, kind settings.Kind, args []string) (argv []string, why string) {
	exe, why := self, "hermes not on PATH: using the built-in backend"
	if path, err := exec.LookPath("hermes"); err == nil {
		exe, why = path, "hermes found on PATH at "+path
	}
	argv = []string{exe, string(kind)}
	if kind == settings.KindDashboard {
		argv = append(argv, "--no-open")
	}
	argv = append(argv, "--host", "127.0.0.1", "--port", "0")
	return append(argv, args...), why
}

// desktopOwned says whether the backend gets the desktop's marks
// (HERMES_DESKTOP=1 and our session token): a dashboard must not, or
// Hermes hides it from host discovery and it never serves its own page.
func (s *Spec) desktopOwned() bool { return s.Kind != settings.KindDashboard }

// servesPage says whether the backend has a page a person opens: a
// dashboard (and whatever a custom command serves); `hermes serve` is API
// only.
func (s *Spec) servesPage() bool { return s.Kind != settings.KindServe }

// DefaultSettings are the values an empty settings field stands for.
func DefaultSettings(self string) settings.Settings {
	argv, _ := ResolveCommand(self, settings.KindDashboard, nil)
	floor := leakguard.DefaultNofileFloor
	return settings.Settings{
		Backends:        []settings.Backend{{Name: DefaultName, Kind: settings.KindDashboard}},
		BackendCommand:  cmdline.Join(argv),
		ReadyRegex:      DefaultReadyRegex,
		HealthPath:      DefaultHealthPath,
		Grace:           DefaultGrace.String(),
		MinOrphanAge:    DefaultMinOrphanAge.String(),
		SampleInterval:  leakguard.DefaultSampleInterval.String(),
		NofileSoftLimit: &floor,
	}
}

// ApplySettings puts the saved settings into the configuration: the
// backends (each with the shared ready pattern, health path and grace) and
// the launcher's options. Empty fields leave the defaults.
func (c *Config) ApplySettings(s settings.Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	c.Backends = nil
	for _, b := range s.Backends {
		spec, err := SpecFromSetting(b)
		if err != nil {
			return err
		}
		c.Backends = append(c.Backends, spec)
	}
	if len(c.Backends) == 0 {
		spec := Spec{}
		if s.BackendCommand != "" {
			spec.Command, _ = cmdline.Split(s.BackendCommand)
		}
		c.Backends = []Spec{spec}
	}
	grace := durationSetting(s.Grace)
	for i := range c.Backends {
		c.Backends[i].ReadyRegex, c.Backends[i].HealthPath, c.Backends[i].Grace = s.ReadyRegex, s.HealthPath, grace
	}
	if d := durationSetting(s.MinOrphanAge); d > 0 {
		c.MinOrphanAge = &d
	}
	if d := durationSetting(s.SampleInterval); d > 0 {
		c.LeakGuard.SampleInterval = d
	}
	c.LeakGuard.MaxDuplicateChildren = s.MaxDuplicateChildren
	c.LeakGuard.RestartOnFDPressure = s.RestartOnFDPressure
	if n := s.NofileSoftLimit; n != nil {
		c.LeakGuard.NofileSoftLimit = settings.NofileFloor(*n)
	}
	return nil
}

// durationSetting reads a validated duration setting ("" is 0).
func durationSetting(v string) time.Duration {
	d, _ := settings.Duration("", v, 0, 1<<62)
	return d
}

// SpecFromSetting turns one configured backend into a spec.
func SpecFromSetting(b settings.Backend) (Spec, error) {
	if err := b.Validate(); err != nil {
		return Spec{}, err
	}
	spec := Spec{Name: b.Name, Kind: b.Kind, Args: b.Args, Disabled: !b.IsEnabled()}
	if b.Kind == settings.KindCustom {
		argv, err := cmdline.Split(b.Command)
		if err != nil {
			return Spec{}, fmt.Errorf("backend %s: %w", b.Name, err)
		}
		spec.Command = argv
	}
	return spec, nil
}
