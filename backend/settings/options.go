package settings

import (
	"fmt"
	"reflect"
	"strings"

	"hermes-desktop/contract/hermes"
)

// The adopt-mode handoff's hidden flags, which backend/handoff's wire
// protocol names a successor's state pipe and launcher job by
// (handoff.AdoptFDFlag, AdoptJobFlag): spelled here, in the leaf that
// lists every option, which the handoff may import and not the reverse.
const (
	FlagAdoptFD  = "adopt-fd"
	FlagAdoptJob = "adopt-job"
)

// Options is the one table of the launcher's options: each says where it
// is saved (its Settings field and so its config.json key), its `run` flag
// and environment variable, its type, whether the Settings page edits it,
// and when a saved change applies. The store's editable set, run's flags,
// the environment a flag reads and the page's setting keys (cmd/tsgen) are
// all derived from it; nothing else lists them. Order is the page's order
// of keys and the order of PendingRelaunch's answer.
var Options = []Option{
	{Flag: "headless", Env: "HERMES_DESKTOP_HEADLESS", Type: TypeBool, Usage: "run without a window"},
	{Flag: "state-dir", Env: "HERMES_DESKTOP_STATE_DIR", Type: TypeText, Usage: "state directory", Note: "default $" + hermes.EnvHome + "/desktop", NoEnvDefault: true},
	{Field: "Backends"}, // the Backends page's (Store.EditBackends), never an Edit's
	{Field: "BackendCommand", Label: "Backend command", Editable: true, Applies: AppliesToBackends, Flag: "backend-cmd", Env: "HERMES_DESKTOP_BACKEND_CMD", Type: TypeText,
		Usage: "backend command line, quoted as in the system's shell", Note: "default hermes serve, else the built-in backend"},
	{Field: "ReadyRegex", Label: "Ready pattern", Editable: true, Applies: AppliesOnRelaunch, Flag: "ready-regex", Env: "HERMES_DESKTOP_READY_REGEX", Type: TypeText,
		Usage: "regex whose first group is the port, matched on the backend's output"},
	{Field: "HealthPath", Label: "Health check path", Editable: true, Applies: AppliesOnRelaunch, Flag: "health-path", Env: "HERMES_DESKTOP_HEALTH_PATH", Type: TypeText,
		Usage: "health check path", Note: "default " + hermes.HealthPath},
	{Field: "Grace", Label: "Stop grace period", Editable: true, Applies: AppliesToBackends, Flag: "grace", Env: "HERMES_DESKTOP_GRACE", Type: TypeDuration,
		Usage: "time a backend has to exit once asked to stop (SIGTERM; CTRL_BREAK on Windows) before it is killed"},
	{Flag: "start-timeout", Env: "HERMES_DESKTOP_START_TIMEOUT", Type: TypeDuration, Usage: "time a backend has to become ready"},
	{Flag: "restart-window", Env: "HERMES_DESKTOP_RESTART_WINDOW", Type: TypeDuration,
		Usage: "a backend that exits unexpectedly 4 times within this window is failed, not restarted"},
	{Field: "MinOrphanAge", Label: "Minimum orphan age", Editable: true, Applies: AppliesOnRelaunch, Flag: "min-orphan-age", Env: "HERMES_DESKTOP_MIN_ORPHAN_AGE", Type: TypeDuration,
		Usage: "minimum age of an unrecorded orphan before the boot reap removes it; 0s: no minimum"},
	{Flag: "no-shim", Env: "HERMES_DESKTOP_NO_SHIM", Type: TypeBool,
		Usage: "debugging only: run backends without the watchdog shim, so a killed launcher strands them"},
	{Flag: "containment", Env: "HERMES_DESKTOP_CONTAINMENT", Type: TypeText,
		Usage: "what holds each backend's tree: auto (the strongest available), cgroup, systemd-scope, job or process-tree"},
	{Flag: "netns", Env: "HERMES_DESKTOP_NETNS", Type: TypeText,
		Usage: "remote backends: auto runs each in a network namespace of its own where its host allows it (other accounts there cannot reach it), off in the host's network"},
	{Flag: "no-boot-reap", Env: "HERMES_DESKTOP_NO_BOOT_REAP", Type: TypeBool, Usage: "skip the reap of abandoned backends before the first spawn"},
	{Field: "StartAtLogin", Editable: true, Type: TypeBool},
	{Field: "SampleInterval", Label: "Sample interval", Editable: true, Applies: AppliesOnRelaunch, Flag: "sample-interval", Env: "HERMES_DESKTOP_SAMPLE_INTERVAL", Type: TypeDuration,
		Usage: "how often each backend's process tree is sampled"},
	{Field: "MaxDuplicateChildren", Label: "Duplicate helper limit", Editable: true, Applies: AppliesOnRelaunch, Flag: "max-duplicate-children", Env: "HERMES_DESKTOP_MAX_DUPLICATE_CHILDREN", Type: TypeInt,
		Usage: "keep only the newest N descendants per identical command line; 0 is off"},
	{Field: "RestartOnFDPressure", Editable: true, Applies: AppliesOnRelaunch, Flag: "restart-on-fd-pressure", Env: "HERMES_DESKTOP_RESTART_ON_FD_PRESSURE", Type: TypeBool,
		Usage: "restart a backend at 95% of its open-file limit"},
	{Field: "NofileSoftLimit", Label: "Open-file floor", Editable: true, Applies: AppliesToBackends, Flag: "nofile-soft-limit", Env: "HERMES_DESKTOP_NOFILE_SOFT_LIMIT", Type: TypeInt,
		Usage: "floor for the backends' soft open-file limit, never lowering it; 0 is off"},
	{Field: "UpdateFeed", Label: "Update feed", Editable: true, Flag: "update-feed", Env: "HERMES_DESKTOP_UPDATE_FEED", Type: TypeText,
		Usage: "the self-update feed's URL, like https://example.com/hermes-desktop/stable.json; no default: updates are off without one"},
	{Field: "UpdateAutomatically", Editable: true, Flag: "update-automatically", Env: "HERMES_DESKTOP_UPDATE_AUTOMATICALLY", Type: TypeBool,
		Usage: "apply a downloaded update when the backends are idle, without asking"},
	{Flag: "update-health-window", Env: "HERMES_DESKTOP_UPDATE_HEALTH_WINDOW", Type: TypeDuration,
		Usage: "how long a new version must stay healthy after an update before it is kept; a failure inside it rolls back"},
	{Flag: "update-check-interval", Env: "HERMES_DESKTOP_UPDATE_CHECK_INTERVAL", Type: TypeDuration, Usage: "time between automatic update checks; 0 turns them off"},
	{Flag: FlagAdoptFD, Type: TypeInt, Usage: "internal: handoff state pipe (set by a handoff in adopt mode)"},
	{Flag: FlagAdoptJob, Type: TypeInt, Usage: "internal: the launcher's job handle (Windows; set by a handoff in adopt mode)"},
	{Flag: "log-level", Env: "HERMES_DESKTOP_LOG_LEVEL", Type: TypeText, Usage: "debug, info, warn or error"},
	// Saved and edited, with no flag: the remote backends' connections.
	{Field: "SSHConfig", Label: "SSH config file", Editable: true, Type: TypeText},
	// The remote watchdog is given the grace as it starts.
	{Field: "DisconnectGrace", Label: "Disconnect grace", Editable: true, Applies: AppliesToBackends, Type: TypeDuration},
}

// Option is one of the launcher's options (see Options). An option with no
// Field is the command line's alone; one with no Flag is saved only.
type Option struct {
	// Field is its Settings field, whose JSON tag is the option's Key; ""
	// when it is not saved.
	Field string
	// Label is the field's name as the page shows it; Validate starts a
	// field's error with it, so the page puts the error under the field.
	// "" for a checkbox, whose value cannot be wrong.
	Label string
	// Editable says the Settings page edits it (Edit may name it).
	Editable bool
	// Applies says when a saved change takes effect.
	Applies Applies
	// Flag is its `run` flag; "" for none.
	Flag string
	// Env is the environment variable a flag's default is read from and
	// that, given, wins over the saved value as the flag does; "" for none.
	Env string
	// Type is the type of its value, on the command line and on the page.
	Type Type
	// Usage is the flag's help, before "(env ...)"; Note is said after the
	// variable's name.
	Usage, Note string
	// NoEnvDefault: the flag does not read Env itself (its reader does).
	NoEnvDefault bool
}

// Type is the type of an option's value.
type Type string

// Types an option's value has.
const (
	TypeText     Type = "text"
	TypeDuration Type = "duration"
	TypeInt      Type = "int"
	TypeBool     Type = "bool"
)

// Applies says when a change to a saved option takes effect.
type Applies int

// When saved changes apply.
const (
	// AppliesAtOnce: the running app takes it on save (the zero value).
	AppliesAtOnce Applies = iota
	// AppliesOnRelaunch: the launcher reads it as it starts, so the app
	// must relaunch to take it; a running backend can be handed to the new
	// launcher as it is.
	AppliesOnRelaunch
	// AppliesToBackends: a backend is given it as it starts, so the
	// backends must restart to take it.
	AppliesToBackends
)

// Key is the option's config.json key; "" when it is not saved.
func (o Option) Key() string {
	if o.Field == "" {
		return ""
	}
	f, ok := reflect.TypeFor[Settings]().FieldByName(o.Field)
	if !ok {
		panic(fmt.Sprintf("settings: option %q: Settings has no such field", o.Field))
	}
	key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return key
}

// Help is the flag's help text, naming its environment variable.
func (o Option) Help() string {
	switch {
	case o.Env == "":
		return o.Usage
	case o.Note != "":
		return o.Usage + " (env " + o.Env + "; " + o.Note + ")"
	}
	return o.Usage + " (env " + o.Env + ")"
}

// EditableKeys are the config.json keys the Settings page edits, in
// Options' order.
func EditableKeys() []string {
	var keys []string
	for _, o := range Options {
		if o.Editable {
			keys = append(keys, o.Key())
		}
	}
	return keys
}

// optionByKey finds a saved option by its config.json key.
func optionByKey(key string) (Option, bool) {
	for _, o := range Options {
		if o.Field != "" && o.Key() == key {
			return o, true
		}
	}
	return Option{}, false
}

// copyField sets dst's field of the option to src's.
func (o Option) copyField(dst *Settings, src Settings) {
	reflect.ValueOf(dst).Elem().FieldByName(o.Field).Set(reflect.ValueOf(src).FieldByName(o.Field))
}

// value is the option's field of s.
func (o Option) value(s Settings) reflect.Value { return reflect.ValueOf(s).FieldByName(o.Field) }
