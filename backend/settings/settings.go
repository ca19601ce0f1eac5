// Package settings is the user's saved configuration, <state>/config.json:
// its schema (the backends a user runs, and the launcher's options), its
// validation, and loading it so that a file that cannot be trusted is set
// aside (never deleted) and the defaults used. What each value means to the
// engine, backend.Config.ApplySettings says.
package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"

	"hermes-desktop/backend/update"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cmdline"
	"hermes-desktop/platform/human"
)

// File is the settings file's name in the state dir.
const File = "config.json"

const maxSize = 64 << 10

// Kind is what a backend is to a person.
type Kind string

// Backend kinds.
const (
	// KindDashboard runs `hermes dashboard`: Hermes' browser UI (with
	// chat), the page Open Hermes opens. It is started without the
	// desktop's session token, so Hermes injects its own into the page.
	KindDashboard Kind = "dashboard"
	// KindServe runs `hermes serve`: a desktop-owned headless backend for
	// Hermes clients, with no page ("API only").
	KindServe Kind = "serve"
	// KindCustom runs any command that serves HTTP on loopback.
	KindCustom Kind = "custom"
)

// Kinds lists every kind, in the order the window offers them.
var Kinds = []Kind{KindDashboard, KindServe, KindCustom}

// Backend is one backend the user configured.
type Backend struct {
	// Name identifies it (letters, digits, '.', '_', '-').
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Command is the command line of a custom backend; empty for the
	// Hermes kinds, whose command the launcher finds.
	Command string `json:"command,omitempty"`
	// Args are added to a Hermes kind's command line, such as
	// ["--profile", "work"].
	Args []string `json:"args,omitempty"`
	// Enabled says whether it starts with the app; absent means yes.
	Enabled *bool `json:"enabled,omitempty"`

	// ReadyRegex, HealthPath and Grace are the backend's own ready pattern,
	// health path and grace period, checked as the shared settings of the
	// same names; "" means the shared one as saved when the backend starts.
	// A custom server rarely prints Hermes' ready line or answers
	// /api/health (issue 23, item 2), so it names its own here.
	ReadyRegex string `json:"ready_regex,omitempty"`
	HealthPath string `json:"health_path,omitempty"`
	Grace      string `json:"grace,omitempty"`
	// Host, when set, runs the backend on another machine over SSH:
	// anything ssh(1) takes as a destination ([user@]host,
	// ssh://user@host:port, an alias of the ssh config); on Windows,
	// "wsl:DISTRO" runs it in that WSL distribution.
	Host string `json:"host,omitempty"`
}

// IsEnabled reports whether the backend starts with the app.
func (b Backend) IsEnabled() bool { return b.Enabled == nil || *b.Enabled }

// Settings are what a user can change in the window. An empty value means
// "the default" for every field.
type Settings struct {
	// Backends to run; empty means one dashboard backend (Hermes' own when
	// hermes is on PATH, else the built-in one), or BackendCommand.
	Backends []Backend `json:"backends,omitempty"`
	// BackendCommand is the single custom backend of earlier versions; it
	// is used only when Backends is empty.
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

	// UpdateFeed is the self-update feed's URL (https, or http on this
	// machine); "" means updates are off: there is no default feed.
	UpdateFeed string `json:"update_feed,omitempty"`
	// UpdateAutomatically applies a downloaded update when the backends
	// are idle, without asking first; off by default.
	UpdateAutomatically bool `json:"update_automatically,omitempty"`

	// SSHConfig is the ssh config file remote backends' connections use
	// (ssh -F); "" means ssh's own (~/.ssh/config).
	SSHConfig string `json:"ssh_config,omitempty"`
	// DisconnectGrace is how long a remote backend outlives a silent
	// connection before its host tears it down; "" means 30s.
	DisconnectGrace string `json:"disconnect_grace,omitempty"`
}

// View is what the window's settings form shows: the saved settings, the
// defaults an empty field stands for, where they are saved, and a notice
// when the saved file could not be used.
type View struct {
	Settings Settings `json:"settings"`
	Defaults Settings `json:"defaults"`
	Path     string   `json:"path"`
	Notice   string   `json:"notice,omitempty"`
	// Pending names the saved settings (their JSON keys) the running app
	// does not use yet: they apply when it relaunches (PendingRelaunch).
	Pending []string `json:"pending"`
	// PendingRestartsBackends says that one of them applies to a backend
	// only as it starts, so relaunching the app restarts the backends too.
	PendingRestartsBackends bool `json:"pending_restarts_backends"`
}

// Labels names each field the Settings page edits as the page labels it
// (cmd/tsgen gives the page them as FIELD_LABELS): Validate
// starts a field's error with its label, so the person reads the name they
// see, and the page puts the error under that field.
var Labels = labels()

// labels are the Options' labels by key, and a backend's Host.
func labels() map[string]string {
	m := map[string]string{"host": "Host"}
	for _, o := range Options {
		if o.Label != "" {
			m[o.Key()] = o.Label
		}
	}
	return m
}

// fieldError says what is wrong with one field: "Ready pattern: not a
// valid regular expression: missing closing )".
func fieldError(key string, err error) error {
	return fmt.Errorf("%s: %w", Labels[key], err)
}

// Validate checks every field and says which one is wrong, one line per
// field (see Labels).
func (s Settings) Validate() error {
	errs := []error{validateBackends(s.Backends)}
	if s.BackendCommand != "" {
		if _, err := cmdline.Split(s.BackendCommand); err != nil {
			errs = append(errs, fieldError("backend_command", err))
		}
	}
	errs = append(errs, validateReadiness(s.ReadyRegex, s.HealthPath, s.Grace)...)
	for _, d := range []struct {
		key, value string
		lo, hi     time.Duration
	}{
		{"min_orphan_age", s.MinOrphanAge, time.Second, 7 * 24 * time.Hour},
		{"sample_interval", s.SampleInterval, 100 * time.Millisecond, time.Hour},
		{"disconnect_grace", s.DisconnectGrace, MinDisconnectGrace, time.Hour},
	} {
		if _, err := Duration(Labels[d.key], d.value, d.lo, d.hi); err != nil {
			errs = append(errs, err)
		}
	}
	if s.MaxDuplicateChildren < 0 || s.MaxDuplicateChildren > 1000 {
		errs = append(errs, fieldError("max_duplicate_children", fmt.Errorf("must be between 0 and 1,000, not %d", s.MaxDuplicateChildren)))
	}
	if n := s.NofileSoftLimit; n != nil && (*n < 0 || *n > 1<<20) {
		errs = append(errs, fieldError("nofile_soft_limit", fmt.Errorf("must be between 0 and %d, not %d", 1<<20, *n)))
	}
	if s.SSHConfig != "" && !filepath.IsAbs(s.SSHConfig) {
		errs = append(errs, fieldError("ssh_config", fmt.Errorf("%q is not an absolute path like /home/you/.ssh/config", s.SSHConfig)))
	}
	if s.UpdateFeed != "" {
		if err := ValidateFeedURL(s.UpdateFeed); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Grace periods a setting may give, shared or a backend's own.
const (
	minGrace = time.Millisecond
	maxGrace = 10 * time.Minute
)

// validateReadiness checks a ready pattern, health path and grace period,
// the shared ones or a backend's own (the same rules and words for both);
// "" is valid in each: the default, or the shared value.
func validateReadiness(readyRegex, healthPath, grace string) []error {
	var errs []error
	if readyRegex != "" {
		if _, err := CompileReadyRegex(readyRegex); err != nil {
			errs = append(errs, fieldError("ready_regex", err))
		}
	}
	if healthPath != "" && healthPath[0] != '/' {
		errs = append(errs, fieldError("health_path", errors.New("must start with /")))
	}
	if _, err := Duration(Labels["grace"], grace, minGrace, maxGrace); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// ValidateFeedURL checks an update feed's URL: absolute, at most 2048
// bytes, and of a scheme and host the update client fetches from
// (update.CheckURL, the one rule: https, or http to a loopback host, a feed
// on this machine; the client checks it again, and every redirect).
func ValidateFeedURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case len(raw) > 2048:
		return fieldError("update_feed", errors.New("longer than 2048 bytes"))
	case err != nil || u.Host == "" || u.Opaque != "":
		return fieldError("update_feed", fmt.Errorf("%q is not an absolute URL like https://example.com/hermes-desktop/stable.json", raw))
	case update.CheckURL(u) != nil:
		return fieldError("update_feed", fmt.Errorf("%q must be https (http only on this machine)", raw))
	}
	return nil
}

// maxBackends bounds the list: each is a process tree.
const maxBackends = 16

func validateBackends(bs []Backend) error {
	if len(bs) > maxBackends {
		return fmt.Errorf("backends: %d is more than %d", len(bs), maxBackends)
	}
	var errs []error
	seen := map[string]bool{}
	for _, b := range bs {
		if err := b.Validate(); err != nil {
			errs = append(errs, err)
		}
		if seen[strings.ToLower(b.Name)] {
			errs = append(errs, fmt.Errorf("backend %q: %w", b.Name, ErrNameTaken))
		}
		seen[strings.ToLower(b.Name)] = true
	}
	return errors.Join(errs...)
}

// ErrNameTaken means another backend has this name, or one that differs only in
// case (their log files would be one file where names ignore case:
// Windows, macOS).
var ErrNameTaken = errors.New("another backend has this name (names that differ only in upper and lower case count as the same)")

// SameName reports whether two backend names name the same backend.
func SameName(a, b string) bool { return strings.EqualFold(a, b) }

// windowsDevice reports whether name is, or starts as, one of Windows'
// device names (CON, NUL, COM1, ...): a file named so is the device.
func windowsDevice(name string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(name), ".")
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '0' && base[3] <= '9'
}

// ValidateName checks a backend's name: it names its log file and its
// records on every OS.
func ValidateName(name string) error {
	if !lockfile.ValidName(name) {
		return fmt.Errorf("backend %q: a name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	if windowsDevice(name) {
		return fmt.Errorf("backend %q: %s is a device name on Windows, not a name a file can have: choose another", name, strings.ToUpper(strings.SplitN(name, ".", 2)[0]))
	}
	return nil
}

// Validate checks one backend and says every fault at once, one per line
// (errors.Join): a form fixed in rounds, one refusal at a time, is what a
// person should not meet.
func (b Backend) Validate() error {
	if err := ValidateName(b.Name); err != nil {
		return err // the other messages name it: a bad name first
	}
	var errs []error
	switch b.Kind {
	case KindDashboard, KindServe:
		if b.Command != "" {
			errs = append(errs, fmt.Errorf("backend %s: a %s backend runs Hermes; only a custom backend has a command", b.Name, b.Kind))
		}
	case KindCustom:
		if strings.TrimSpace(b.Command) == "" {
			errs = append(errs, fmt.Errorf("backend %s: a custom backend needs a command", b.Name))
		} else if _, err := cmdline.Split(b.Command); err != nil {
			errs = append(errs, fmt.Errorf("backend %s: command: %w", b.Name, err))
		}
		if len(b.Args) > 0 {
			errs = append(errs, fmt.Errorf("backend %s: a custom backend takes its arguments in its command", b.Name))
		}
	default:
		errs = append(errs, fmt.Errorf("backend %s: kind %q is not dashboard, serve or custom", b.Name, b.Kind))
	}
	if len(b.Args) > 64 {
		errs = append(errs, fmt.Errorf("backend %s: more than 64 arguments", b.Name))
	}
	if err := ValidateHost(b.Host); err != nil {
		errs = append(errs, fmt.Errorf("backend %s: %w", b.Name, err))
	}
	for _, err := range validateReadiness(b.ReadyRegex, b.HealthPath, b.Grace) {
		errs = append(errs, fmt.Errorf("backend %s: %w", b.Name, err))
	}
	return errors.Join(errs...)
}

// Duration parses a duration setting within [lo, hi]; "" is 0, the default.
func Duration(name, v string, lo, hi time.Duration) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a duration like 5s or 3m", name, v)
	}
	if d < lo || d > hi {
		return 0, fmt.Errorf("%s: must be between %s and %s, not %s", name, human.Duration(lo), human.Duration(hi), human.Duration(d))
	}
	return d, nil
}

// CompileReadyRegex compiles a ready pattern and checks it has a group for
// the port. Its errors are said for a person (see PatternError); the
// caller names the field.
func CompileReadyRegex(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, &PatternError{Err: err}
	}
	if re.NumSubexp() < 1 {
		return nil, errors.New(`needs a group for the port, like port=(\d+)`)
	}
	return re, nil
}

// PatternError is a ready pattern Go cannot compile, said in words a person
// reads: "not a valid regular expression: missing closing )", not
// regexp's "error parsing regexp: ..." with the pattern repeated. Unwrap
// gives regexp's own error.
type PatternError struct{ Err error }

// Error names what is wrong by regexp/syntax's code alone.
func (e *PatternError) Error() string {
	var se *syntax.Error
	if errors.As(e.Err, &se) {
		return "not a valid regular expression: " + string(se.Code)
	}
	return "not a valid regular expression"
}

// Unwrap returns regexp's own error.
func (e *PatternError) Unwrap() error { return e.Err }

// NofileFloor maps the user's open-file floor, where 0 turns it off, to
// leakguard.Config's, where 0 means the default and negative turns it off.
func NofileFloor(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// Path is where the settings of a state dir live.
func Path(stateDir string) string { return filepath.Join(stateDir, File) }

// Load reads the state dir's settings. A missing file means defaults. A
// file that cannot be trusted (bad JSON, unknown fields, invalid values,
// wrong permissions) is moved aside as config.json.corrupt, never deleted,
// and the notice says so; the defaults are used.
func Load(stateDir string) (Settings, string) {
	path := Path(stateDir)
	data, err := lockfile.ReadLimited(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{}, ""
	}
	var s Settings
	if err == nil {
		s, err = Parse(data)
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

// Parse decodes and validates a settings file: exactly one JSON object, no
// unknown fields, every value in range.
func Parse(data []byte) (Settings, error) {
	var s Settings
	if err := lockfile.DecodeStrict(data, &s); err != nil {
		return Settings{}, err
	}
	if err := s.Validate(); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// Save validates s and writes it atomically (0600).
func Save(stateDir string, s Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	return lockfile.WriteJSON(Path(stateDir), s)
}

// MinDisconnectGrace is the shortest disconnect grace a setting may give:
// below it a few lost heartbeats would tear a remote backend down.
const MinDisconnectGrace = 3 * time.Second

// DefaultDisconnectGrace is how long a remote backend outlives a silent
// connection when the setting is empty.
const DefaultDisconnectGrace = 30 * time.Second
