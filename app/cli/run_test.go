package cli

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
)

// TestSettingsMerge checks the one path from saved settings, flags and
// environment variables to the launcher's configuration: explicit wins,
// even when it says zero or false.
func TestSettingsMerge(t *testing.T) {
	cases := []struct {
		name     string
		settings string // config.json; "" for none
		env      map[string]string
		args     []string
		check    func(t *testing.T, cfg backend.Config, spec runspec.Spec)
	}{
		{"defaults", "", nil, nil, func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
			if spec.Grace != 0 || cfg.MinOrphanAge != nil || cfg.LeakGuard.NofileSoftLimit != 0 || len(spec.Command) != 0 || spec.Kind != "" {
				t.Errorf("got grace %v, min age %v, nofile %d, command %q; want zero values, left to the defaults",
					spec.Grace, cfg.MinOrphanAge, cfg.LeakGuard.NofileSoftLimit, spec.Command)
			}
		}},
		{"saved", `{"grace":"2s","min_orphan_age":"10m","backend_command":"python3 -m x","max_duplicate_children":5,"restart_on_fd_pressure":true,"nofile_soft_limit":0}`, nil, nil,
			func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
				want := []string{"python3", "-m", "x"}
				if spec.Grace != 2*time.Second || minAge(cfg) != "10m0s" || !reflect.DeepEqual(spec.Command, want) ||
					cfg.LeakGuard.MaxDuplicateChildren != 5 || !cfg.LeakGuard.RestartOnFDPressure || cfg.LeakGuard.NofileSoftLimit != -1 {
					t.Errorf("got %+v / %+v, want the saved values (nofile 0 -> off)", spec, cfg.LeakGuard)
				}
			}},
		{"flags win", `{"grace":"2s","backend_command":"python3 -m x","max_duplicate_children":5,"restart_on_fd_pressure":true,"nofile_soft_limit":0}`, nil,
			[]string{"--grace", "3s", "--backend-cmd", `a "b c"`, "--max-duplicate-children", "0", "--restart-on-fd-pressure=false", "--nofile-soft-limit", "8192"},
			func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
				if spec.Grace != 3*time.Second || !reflect.DeepEqual(spec.Command, []string{"a", "b c"}) || cfg.LeakGuard.MaxDuplicateChildren != 0 ||
					cfg.LeakGuard.RestartOnFDPressure || cfg.LeakGuard.NofileSoftLimit != 8192 {
					t.Errorf("got %+v / %+v, want the flags' values", spec, cfg.LeakGuard)
				}
			}},
		{"environment wins", `{"grace":"2s","sample_interval":"1s"}`, map[string]string{"HERMES_DESKTOP_GRACE": "4s", "HERMES_DESKTOP_NOFILE_SOFT_LIMIT": "0"}, nil,
			func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
				if spec.Grace != 4*time.Second || cfg.LeakGuard.SampleInterval != time.Second || cfg.LeakGuard.NofileSoftLimit != -1 {
					t.Errorf("got grace %v, sample %v, nofile %d; want 4s from the environment, 1s saved, off",
						spec.Grace, cfg.LeakGuard.SampleInterval, cfg.LeakGuard.NofileSoftLimit)
				}
			}},
		{"saved list, flag replaces it", `{"grace":"2s","backends":[{"name":"work","kind":"dashboard","args":["--profile","work"]},{"name":"api","kind":"serve"}]}`, nil,
			[]string{"--backend-cmd", "a b", "--start-timeout", "7s"},
			func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
				if !reflect.DeepEqual(spec.Command, []string{"a", "b"}) || spec.StartTimeout != 7*time.Second || spec.Name != "" {
					t.Errorf("got %+v, want the flag's one backend", spec)
				}
			}},
		// A backend added in the window later gets the same flags
		// (Launcher.AddBackend applies cfg.Explicit), over its own values.
		{"flags win for a backend added later", `{"grace":"2s"}`, map[string]string{"HERMES_DESKTOP_HEALTH_PATH": "/"},
			[]string{"--grace", "3s", "--ready-regex", `port (\d+)`, "--start-timeout", "7s"},
			func(t *testing.T, cfg backend.Config, _ runspec.Spec) {
				added := runspec.Spec{Name: "web", ReadyRegex: "own (\\d+)", HealthPath: "/own", Grace: time.Second}
				cfg.Explicit(&added)
				if added.Grace != 3*time.Second || added.ReadyRegex != `port (\d+)` || added.HealthPath != "/" || added.StartTimeout != 7*time.Second {
					t.Errorf("added backend: got %+v, want grace 3s, port (\\d+), / and 7s from the flags and environment", added)
				}
			}},
		{"no flags: a backend added later keeps its own", `{"grace":"2s"}`, nil, nil,
			func(t *testing.T, cfg backend.Config, _ runspec.Spec) {
				added := runspec.Spec{Name: "web", ReadyRegex: "own (\\d+)", HealthPath: "/own", Grace: time.Second}
				cfg.Explicit(&added)
				if added.Grace != time.Second || added.ReadyRegex != "own (\\d+)" || added.HealthPath != "/own" || added.StartTimeout != backend.DefaultStartTimeout {
					t.Errorf("added backend: got %+v, want its own values and the default start timeout", added)
				}
			}},
		{"restart window by environment", `{}`, map[string]string{"HERMES_DESKTOP_RESTART_WINDOW": "6s"}, nil,
			func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
				if cfg.RestartWindow != 6*time.Second {
					t.Errorf("got restart window %v, want 6s", cfg.RestartWindow)
				}
			}},
		// An explicit 0 is no minimum, not "unset": it must survive the merge
		// (the saved setting itself cannot go below 1 s).
		{"min orphan age 0 by flag", `{"min_orphan_age":"10m"}`, nil, []string{"--min-orphan-age", "0s"},
			func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
				if got := minAge(cfg); got != "0s" {
					t.Errorf("got min orphan age %s, want 0s", got)
				}
			}},
		{"min orphan age 0 by environment", `{"min_orphan_age":"10m"}`, map[string]string{"HERMES_DESKTOP_MIN_ORPHAN_AGE": "0s"}, nil,
			func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
				if got := minAge(cfg); got != "0s" {
					t.Errorf("got min orphan age %s, want 0s", got)
				}
			}},
		{"update settings saved", `{"update_feed":"https://example.com/stable.json","update_automatically":true}`, nil, nil,
			func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
				if cfg.UpdateFeed != "https://example.com/stable.json" || !cfg.UpdateAutomatically || cfg.UpdateFeedFrom != "" || cfg.UpdateAutomaticallyFrom != "" {
					t.Errorf("got feed %q from %q, automatic %v from %q; want the saved ones, from the settings",
						cfg.UpdateFeed, cfg.UpdateFeedFrom, cfg.UpdateAutomatically, cfg.UpdateAutomaticallyFrom)
				}
			}},
		// The running launcher keeps these over settings saved later, so it
		// must know they were given, and say by what.
		{"update flags win and say so", `{"update_feed":"https://example.com/stable.json","update_automatically":true}`,
			map[string]string{"HERMES_DESKTOP_UPDATE_FEED": "https://env.example.com/stable.json"},
			[]string{"--update-feed", "https://flag.example.com/beta.json", "--update-automatically=false"},
			func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
				if cfg.UpdateFeed != "https://flag.example.com/beta.json" || cfg.UpdateFeedFrom != "--update-feed" ||
					cfg.UpdateAutomatically || cfg.UpdateAutomaticallyFrom != "--update-automatically" {
					t.Errorf("got feed %q from %q, automatic %v from %q; want the flags'",
						cfg.UpdateFeed, cfg.UpdateFeedFrom, cfg.UpdateAutomatically, cfg.UpdateAutomaticallyFrom)
				}
			}},
		{"update environment wins and says so", `{"update_feed":"https://example.com/stable.json"}`,
			map[string]string{"HERMES_DESKTOP_UPDATE_FEED": "http://127.0.0.1:8080/stable.json", "HERMES_DESKTOP_UPDATE_AUTOMATICALLY": "1"}, nil,
			func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
				if cfg.UpdateFeed != "http://127.0.0.1:8080/stable.json" || cfg.UpdateFeedFrom != "HERMES_DESKTOP_UPDATE_FEED" ||
					!cfg.UpdateAutomatically || cfg.UpdateAutomaticallyFrom != "HERMES_DESKTOP_UPDATE_AUTOMATICALLY" {
					t.Errorf("got feed %q from %q, automatic %v from %q; want the environment's",
						cfg.UpdateFeed, cfg.UpdateFeedFrom, cfg.UpdateAutomatically, cfg.UpdateAutomaticallyFrom)
				}
			}},
		{"bad file", `{"grace":"forever"}`, nil, nil, func(t *testing.T, cfg backend.Config, spec runspec.Spec) {
			if spec.Grace != 0 || len(cfg.Notices) != 1 || !strings.Contains(cfg.Notices[0], "set aside") {
				t.Errorf("got grace %v, notices %q; want the defaults and a notice", spec.Grace, cfg.Notices)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", t.TempDir()) // no hermes here
			for _, opt := range settings.Options {
				if opt.Env != "" {
					t.Setenv(opt.Env, "")
				}
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			dir := filepath.Join(t.TempDir(), "state")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if tc.settings != "" {
				if err := os.WriteFile(filepath.Join(dir, settings.File), []byte(tc.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			o, err := parseRunFlags(append([]string{"--state-dir", dir}, tc.args...), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			cfg, _, err := o.config(io.Discard, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Backends) == 0 {
				t.Fatal("got no backends")
			}
			tc.check(t, cfg, cfg.Backends[0])
		})
	}
}

// TestSavedBackendList checks that a saved list reaches the config whole.
func TestSavedBackendList(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	body := `{"grace":"2s","backends":[{"name":"work","kind":"dashboard","args":["--profile","work"]},{"name":"api","kind":"serve","enabled":false}]}`
	if err := os.WriteFile(filepath.Join(dir, settings.File), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := parseRunFlags([]string{"--state-dir", dir}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cfg, _, err := o.config(&out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Backends) != 2 || cfg.Backends[0].Name != "work" || cfg.Backends[1].Kind != settings.KindServe || !cfg.Backends[1].Disabled ||
		cfg.Backends[0].Grace != 2*time.Second {
		t.Errorf("got %+v, want work (dashboard) and api (serve, disabled), grace 2s", cfg.Backends)
	}
	out.WriteString(announcement(cfg, ""))
	if !strings.Contains(out.String(), "using backend: work: ") || !strings.Contains(out.String(), "--profile work") {
		t.Errorf("announcement: got %q", out.String())
	}
}

// minAge shows cfg.MinOrphanAge ("unset" for nil).
func minAge(cfg backend.Config) string {
	if cfg.MinOrphanAge == nil {
		return "unset"
	}
	return cfg.MinOrphanAge.String()
}

func TestSuccessorArgsDropTheHandoffFlag(t *testing.T) {
	argv := []string{"run", "--headless", "--adopt-fd", "3", "--grace=2s", "--adopt-fd=3", "-adopt-fd", "4", "--adopt-job=132", "--adopt-job", "8"}
	if got, want := successorArgs(argv), []string{"run", "--headless", "--grace=2s"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A backend on another host is described as what runs there, not as the
// command this machine would run.
func TestDescribeRemoteBackend(t *testing.T) {
	got := describeBackend("/opt/hd/hermes-desktop", runspec.Spec{Name: "far", Kind: settings.KindServe, Host: "me@box"})
	want := "far: on me@box: hermes serve --isolated --host 127.0.0.1 --port 0 (hermes there, else the built-in backend)"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got = describeBackend("/opt/hd/hermes-desktop", runspec.Spec{Name: "py", Kind: settings.KindCustom, Host: "box", Command: []string{"python3", "-m", "http.server"}})
	if want := "py: on box: python3 -m http.server (configured)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
