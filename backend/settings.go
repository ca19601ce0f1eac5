package backend

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/lockfile"
)

// SettingsFile is the user's settings, saved by the window.
const SettingsFile = "config.json"

const maxSettingsSize = 64 << 10

// Settings are what a user can change in the window. An empty string means
// "the default" for every field.
type Settings struct {
	BackendCommand string `json:"backend_command"`
	ReadyRegex     string `json:"ready_regex"`
	HealthPath     string `json:"health_path"`
	Grace          string `json:"grace"`
	MinOrphanAge   string `json:"min_orphan_age"`
	StartAtLogin   bool   `json:"start_at_login"`

	// Leak guard (see leakguard.Config). SampleInterval "" means 5s.
	SampleInterval       string `json:"sample_interval,omitempty"`
	MaxDuplicateChildren int    `json:"max_duplicate_children,omitempty"`
	RestartOnFDPressure  bool   `json:"restart_on_fd_pressure,omitempty"`
	// NofileSoftLimit: absent means 4096; 0 turns the floor off.
	NofileSoftLimit *int `json:"nofile_soft_limit,omitempty"`
}

// SettingsView is what the window's settings form shows: the saved
// settings, the defaults an empty field stands for, where they are saved,
// and a notice when the saved file could not be used. It lives here, not
// next to the bound methods in package main, so internal/tsgen can generate
// the page's type from it.
type SettingsView struct {
	Settings Settings `json:"settings"`
	Defaults Settings `json:"defaults"`
	Path     string   `json:"path"`
	Notice   string   `json:"notice,omitempty"`
}

// DefaultSettings are the values an empty field stands for.
func DefaultSettings(self string) Settings {
	argv, _ := DefaultCommand(self)
	return Settings{
		BackendCommand: JoinCommand(argv),
		ReadyRegex:     DefaultReadyRegex,
		HealthPath:     DefaultHealthPath,
		Grace:          DefaultGrace.String(),
		MinOrphanAge:   DefaultMinOrphanAge.String(),
		SampleInterval: leakguard.DefaultSampleInterval.String(),
		NofileSoftLimit: func() *int {
			n := leakguard.DefaultNofileFloor
			return &n
		}(),
	}
}

// Validate checks every field and says which one is wrong.
func (s Settings) Validate() error {
	var errs []error
	if s.BackendCommand != "" {
		if _, err := SplitCommand(s.BackendCommand); err != nil {
			errs = append(errs, fmt.Errorf("backend command: %w", err))
		}
	}
	if s.ReadyRegex != "" {
		if _, err := compileReadyRegex(s.ReadyRegex); err != nil {
			errs = append(errs, fmt.Errorf("ready regex: %w", err))
		}
	}
	if s.HealthPath != "" && s.HealthPath[0] != '/' {
		errs = append(errs, fmt.Errorf("health path %q must start with /", s.HealthPath))
	}
	if _, err := parseSettingDuration("grace period", s.Grace, time.Millisecond, 10*time.Minute); err != nil {
		errs = append(errs, err)
	}
	if _, err := parseSettingDuration("minimum orphan age", s.MinOrphanAge, time.Second, 7*24*time.Hour); err != nil {
		errs = append(errs, err)
	}
	if _, err := parseSettingDuration("sample interval", s.SampleInterval, 100*time.Millisecond, time.Hour); err != nil {
		errs = append(errs, err)
	}
	if s.MaxDuplicateChildren < 0 || s.MaxDuplicateChildren > 1000 {
		errs = append(errs, fmt.Errorf("max duplicate children: %d is outside 0..1000", s.MaxDuplicateChildren))
	}
	if n := s.NofileSoftLimit; n != nil && (*n < 0 || *n > 1<<20) {
		errs = append(errs, fmt.Errorf("open-file floor: %d is outside 0..%d", *n, 1<<20))
	}
	return errors.Join(errs...)
}

func parseSettingDuration(name, v string, lo, hi time.Duration) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a duration like 5s or 3m", name, v)
	}
	if d < lo || d > hi {
		return 0, fmt.Errorf("%s: %v is outside %v..%v", name, d, lo, hi)
	}
	return d, nil
}

// Apply puts the non-empty settings into a backend spec and the config.
func (s Settings) Apply(cfg *Config, spec *Spec) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.BackendCommand != "" {
		spec.Command, _ = SplitCommand(s.BackendCommand)
	}
	if s.ReadyRegex != "" {
		spec.ReadyRegex = s.ReadyRegex
	}
	if s.HealthPath != "" {
		spec.HealthPath = s.HealthPath
	}
	if d, _ := parseSettingDuration("", s.Grace, 0, 1<<62); d > 0 {
		spec.Grace = d
	}
	if d, _ := parseSettingDuration("", s.MinOrphanAge, 0, 1<<62); d > 0 {
		cfg.MinOrphanAge = &d
	}
	if d, _ := parseSettingDuration("", s.SampleInterval, 0, 1<<62); d > 0 {
		cfg.LeakGuard.SampleInterval = d
	}
	cfg.LeakGuard.MaxDuplicateChildren = s.MaxDuplicateChildren
	cfg.LeakGuard.RestartOnFDPressure = s.RestartOnFDPressure
	if n := s.NofileSoftLimit; n != nil {
		cfg.LeakGuard.NofileSoftLimit = NofileFloor(*n)
	}
	return nil
}

// NofileFloor maps the user's open-file floor, where 0 turns it off, to
// leakguard.Config's, where 0 means the default and negative turns it off.
func NofileFloor(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// SettingsPath is where the settings of a state dir live.
func SettingsPath(stateDir string) string { return filepath.Join(stateDir, SettingsFile) }

// LoadSettings reads the state dir's settings. A missing file means
// defaults. A file that cannot be trusted (bad JSON, unknown fields, invalid
// values, wrong permissions) is moved aside as config.json.corrupt, never
// deleted, and the notice says so; the defaults are used.
func LoadSettings(stateDir string) (Settings, string) {
	path := SettingsPath(stateDir)
	data, err := lockfile.ReadLimited(path, maxSettingsSize)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{}, ""
	}
	var s Settings
	if err == nil {
		s, err = ParseSettings(data)
	}
	if err == nil {
		return s, ""
	}
	moved, merr := lockfile.MoveAside(path)
	if merr != nil {
		return Settings{}, fmt.Sprintf("%s is invalid (%v) and could not be moved aside (%v); the defaults are in use", path, err, merr)
	}
	return Settings{}, fmt.Sprintf("%s was invalid (%v) and was set aside as %s; the defaults are in use", path, err, filepath.Base(moved))
}

// ParseSettings decodes and validates a settings file: exactly one JSON
// object, no unknown fields, every value in range.
func ParseSettings(data []byte) (Settings, error) {
	var s Settings
	if err := lockfile.DecodeStrict(data, &s); err != nil {
		return Settings{}, err
	}
	if err := s.Validate(); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// SaveSettings validates s and writes it atomically (0600).
func SaveSettings(stateDir string, s Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	return lockfile.WriteJSON(SettingsPath(stateDir), s)
}
