package backend

import (
	"reflect"
	"testing"
	"time"

	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
)

func ptr[T any](v T) *T { return &v }

func TestApplySettings(t *testing.T) {
	list := []settings.Backend{
		{Name: "work", Kind: settings.KindDashboard, Args: []string{"--profile", "work"}},
		{Name: "api", Kind: settings.KindServe, Enabled: ptr(false)},
		{Name: "web", Kind: settings.KindCustom, Command: "python3 -m http.server"},
	}
	own := settings.Backend{Name: "web", Kind: settings.KindCustom, Command: "python3 -u -m http.server 0", ReadyRegex: `port (\d+)`, HealthPath: "/", Grace: "3s"}
	cases := []struct {
		name  string
		s     settings.Settings
		check func(t *testing.T, c Config)
	}{
		{"empty: one default backend", settings.Settings{}, func(t *testing.T, c Config) {
			if len(c.Backends) != 1 || c.Backends[0].Kind != "" || len(c.Backends[0].Command) != 0 {
				t.Errorf("got %+v, want one spec left to the defaults", c.Backends)
			}
		}},
		{"legacy single command", settings.Settings{BackendCommand: "python3 -m http.server --bind 127.0.0.1 0", Grace: "1s", HealthPath: "/"}, func(t *testing.T, c Config) {
			b := c.Backends[0]
			if len(c.Backends) != 1 || len(b.Command) != 6 || b.HealthPath != "/" || b.Grace != time.Second {
				t.Errorf("got %+v", c.Backends)
			}
		}},
		{"a list", settings.Settings{Grace: "2s", Backends: list}, func(t *testing.T, c Config) {
			want := []runspec.Spec{
				{Name: "work", Kind: settings.KindDashboard, Args: []string{"--profile", "work"}, Grace: 2 * time.Second, Setting: list[0]},
				{Name: "api", Kind: settings.KindServe, Disabled: true, Grace: 2 * time.Second, Setting: list[1]},
				{Name: "web", Kind: settings.KindCustom, Command: []string{"python3", "-m", "http.server"}, Grace: 2 * time.Second, Setting: list[2]},
			}
			if !reflect.DeepEqual(c.Backends, want) {
				t.Errorf("got %+v, want %+v", c.Backends, want)
			}
		}},
		// A backend's own ready pattern, health path and grace win over the
		// shared ones; what it leaves empty is the shared value.
		{"own readiness", settings.Settings{ReadyRegex: `READY (\d+)`, HealthPath: "/healthz", Grace: "2s", Backends: []settings.Backend{
			own, {Name: "half", Kind: settings.KindCustom, Command: "srv", HealthPath: "/ok"}, {Name: "api", Kind: settings.KindServe},
		}}, func(t *testing.T, c Config) {
			type readiness struct {
				re, path string
				grace    time.Duration
			}
			want := []readiness{{`port (\d+)`, "/", 3 * time.Second}, {`READY (\d+)`, "/ok", 2 * time.Second}, {`READY (\d+)`, "/healthz", 2 * time.Second}}
			for i, b := range c.Backends {
				if got := (readiness{b.ReadyRegex, b.HealthPath, b.Grace}); got != want[i] {
					t.Errorf("%s: got %+v, want %+v", b.Name, got, want[i])
				}
			}
			if !reflect.DeepEqual(c.Backends[0].Setting, own) {
				t.Errorf("web's setting: got %+v, want %+v (saved back as configured)", c.Backends[0].Setting, own)
			}
		}},
		{"leak guard", settings.Settings{SampleInterval: "250ms", MaxDuplicateChildren: 2, RestartOnFDPressure: true, NofileSoftLimit: ptr(0)}, func(t *testing.T, c Config) {
			lg := c.LeakGuard
			if lg.SampleInterval != 250*time.Millisecond || lg.MaxDuplicateChildren != 2 || !lg.RestartOnFDPressure || lg.NofileSoftLimit >= 0 {
				t.Errorf("leak guard: got %+v", lg)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			if err := c.ApplySettings(tc.s); err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

func TestSpecDefaultsByKind(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no hermes: the built-in backend
	cases := []struct {
		spec     runspec.Spec
		wantKind settings.Kind
		want     []string
	}{
		{runspec.Spec{}, settings.KindDashboard, []string{"/self", "dashboard", "--no-open", "--host", "127.0.0.1", "--port", "0"}},
		{runspec.Spec{Kind: settings.KindServe, Args: []string{"--profile", "p"}}, settings.KindServe, []string{"/self", "serve", "--host", "127.0.0.1", "--port", "0", "--profile", "p"}},
		{runspec.Spec{Command: []string{"x", "y"}}, settings.KindCustom, []string{"x", "y"}},
	}
	for _, tc := range cases {
		s := tc.spec
		if err := s.ApplyDefaults("/self"); err != nil {
			t.Fatal(err)
		}
		if s.Kind != tc.wantKind || !reflect.DeepEqual(s.Command, tc.want) {
			t.Errorf("%+v: got kind %s command %q, want %s %q", tc.spec, s.Kind, s.Command, tc.wantKind, tc.want)
		}
	}
	if err := (&runspec.Spec{Kind: settings.KindCustom}).ApplyDefaults("/self"); err == nil {
		t.Error("a custom spec without a command was accepted")
	}
}
