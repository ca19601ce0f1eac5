package cli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/backend/handoff"
	"hermes-desktop/backend/settings"
	"hermes-desktop/watchdog"
)

// TestRunFlagsPinned pins run's flags as a person reads them in --help:
// every name, type, default and help text, with the environment variable
// each names. The flags are built from an option table now; a rename there
// must fail here, not in a user's script. Update the golden file
// (testdata/run-flags.golden) only for a change meant to reach users.
func TestRunFlagsPinned(t *testing.T) {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "HERMES_DESKTOP_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
	var out bytes.Buffer
	if _, err := parseRunFlags([]string{"-h"}, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("got %v, want flag.ErrHelp", err)
	}
	golden := filepath.Join("testdata", "run-flags.golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("run's help changed:\ngot:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestProtocolNamesAgree: the option table spells two names a protocol
// defines elsewhere: the shim's grace variable and the handoff's flag.
func TestProtocolNamesAgree(t *testing.T) {
	byFlag := map[string]settings.Option{}
	for _, o := range settings.Options {
		byFlag[o.Flag] = o
	}
	if got := byFlag["grace"].Env; got != watchdog.EnvGrace {
		t.Errorf("got --grace's variable %q, want watchdog.EnvGrace %q", got, watchdog.EnvGrace)
	}
	if o, ok := byFlag[handoff.AdoptFDFlag]; !ok || o.Env != "" {
		t.Errorf("got %+v for --%s, want an option with no variable", o, handoff.AdoptFDFlag)
	}
}

// TestSettingsEnvPinned pins the environment variable of each run option a
// saved setting also sets: given, it wins over config.json (explicit).
func TestSettingsEnvPinned(t *testing.T) {
	want := map[string]string{
		"backend-cmd":            "HERMES_DESKTOP_BACKEND_CMD",
		"ready-regex":            "HERMES_DESKTOP_READY_REGEX",
		"health-path":            "HERMES_DESKTOP_HEALTH_PATH",
		"grace":                  "HERMES_DESKTOP_GRACE",
		"min-orphan-age":         "HERMES_DESKTOP_MIN_ORPHAN_AGE",
		"sample-interval":        "HERMES_DESKTOP_SAMPLE_INTERVAL",
		"max-duplicate-children": "HERMES_DESKTOP_MAX_DUPLICATE_CHILDREN",
		"restart-on-fd-pressure": "HERMES_DESKTOP_RESTART_ON_FD_PRESSURE",
		"nofile-soft-limit":      "HERMES_DESKTOP_NOFILE_SOFT_LIMIT",
		"update-feed":            "HERMES_DESKTOP_UPDATE_FEED",
		"update-automatically":   "HERMES_DESKTOP_UPDATE_AUTOMATICALLY",
	}
	values := map[string]string{"backend-cmd": "x", "ready-regex": "p=(\\d+)", "health-path": "/h",
		"restart-on-fd-pressure": "true", "update-automatically": "true", "update-feed": "https://example.com/f.json",
		"max-duplicate-children": "2", "nofile-soft-limit": "10"}
	for flagName, env := range want {
		t.Run(flagName, func(t *testing.T) {
			v := values[flagName]
			if v == "" {
				v = "7s"
			}
			t.Setenv(env, v)
			o, err := parseRunFlags(nil, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			if got := o.explicit[flagName]; got != env {
				t.Errorf("got explicit[%q] = %q, want %q", flagName, got, env)
			}
			if n := len(o.explicit); n != 1 {
				t.Errorf("got %d explicit options %v, want 1", n, o.explicit)
			}
		})
	}
}

// --netns (or HERMES_DESKTOP_NETNS) reaches the remote hosts' config;
// anything but auto or off is refused.
func TestNetnsFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string
		want string
		bad  bool
	}{
		{args: nil, want: "auto"},
		{args: []string{"--netns=off"}, want: "off"},
		{env: "off", want: "off"},
		{args: []string{"--netns=no"}, bad: true},
	} {
		t.Setenv("HERMES_DESKTOP_NETNS", tc.env)
		o, err := parseRunFlags(tc.args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		_, _, got, err := o.checked()
		if tc.bad != (err != nil) || (!tc.bad && got != tc.want) {
			t.Errorf("%v, env %q: got %q, %v; want %q (error: %v)", tc.args, tc.env, got, err, tc.want, tc.bad)
		}
	}
}
