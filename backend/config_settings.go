package backend

import (
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/platform/cmdline"
)

// DefaultSettings are the values an empty settings field stands for.
func DefaultSettings(self string) settings.Settings {
	argv, _ := runspec.ResolveCommand(self, settings.KindDashboard, nil)
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
		DisconnectGrace: settings.DefaultDisconnectGrace.String(),
	}
}

// ApplySettings puts the saved settings into the configuration: the
// backends (each with its own ready pattern, health path and grace, or
// else the shared ones) and the launcher's options. Empty fields leave the
// defaults.
func (c *Config) ApplySettings(s settings.Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	c.Backends = nil
	for _, b := range s.Backends {
		spec, err := runspec.FromSetting(b, s)
		if err != nil {
			return err
		}
		c.Backends = append(c.Backends, spec)
	}
	if len(c.Backends) == 0 {
		spec := runspec.Spec{ReadyRegex: s.ReadyRegex, HealthPath: s.HealthPath, Grace: durationSetting(s.Grace)}
		if s.BackendCommand != "" {
			spec.Command, _ = cmdline.Split(s.BackendCommand)
		}
		c.Backends = []runspec.Spec{spec}
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
	c.UpdateFeed, c.UpdateAutomatically = s.UpdateFeed, s.UpdateAutomatically
	return nil
}

// durationSetting reads a validated duration setting ("" is 0).
func durationSetting(v string) time.Duration {
	d, _ := settings.Duration("", v, 0, 1<<62)
	return d
}
