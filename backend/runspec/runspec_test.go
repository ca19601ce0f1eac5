package runspec

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/settings"
	"hermes-desktop/contract/hermes"
)

const self = "/opt/hermes-desktop/hermes-desktop"

// noHermes empties PATH for the test: no hermes to find.
func noHermes(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
}

// fakeHermes puts an executable hermes on PATH that prints its arguments,
// one a line, and returns its path.
func fakeHermes(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake hermes is a shell script")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "hermes")
	if err := os.WriteFile(path, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return path
}

func TestApplyDefaultsFillsZeroFields(t *testing.T) {
	noHermes(t)
	var s Spec
	if err := s.ApplyDefaults(self); err != nil {
		t.Fatal(err)
	}
	want := Spec{
		Name:         DefaultName,
		Kind:         settings.KindDashboard,
		Command:      append([]string{self}, hermes.LocalArgs(hermes.VerbDashboard)...),
		ReadyRegex:   DefaultReadyRegex,
		HealthPath:   DefaultHealthPath,
		Grace:        DefaultGrace,
		StartTimeout: DefaultStartTimeout,
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v, want %+v", s, want)
	}
}

func TestApplyDefaultsKeepsWhatIsSet(t *testing.T) {
	noHermes(t)
	s := Spec{
		Name: "api", Kind: settings.KindServe, Args: []string{"--profile", "work"},
		ReadyRegex: `listening on (\d+)`, HealthPath: "/ping", Grace: time.Second, StartTimeout: time.Minute,
	}
	if err := s.ApplyDefaults(self); err != nil {
		t.Fatal(err)
	}
	wantCmd := append(append([]string{self}, hermes.LocalArgs(hermes.VerbServe)...), "--profile", "work")
	if !reflect.DeepEqual(s.Command, wantCmd) {
		t.Errorf("command: got %q, want %q", s.Command, wantCmd)
	}
	if s.Name != "api" || s.Kind != settings.KindServe || s.ReadyRegex != `listening on (\d+)` ||
		s.HealthPath != "/ping" || s.Grace != time.Second || s.StartTimeout != time.Minute {
		t.Errorf("got %+v, want the fields as set", s)
	}
}

func TestApplyDefaultsCommandMakesCustom(t *testing.T) {
	s := Spec{Command: []string{"python3", "-m", "http.server"}}
	if err := s.ApplyDefaults(self); err != nil {
		t.Fatal(err)
	}
	if s.Kind != settings.KindCustom || !reflect.DeepEqual(s.Command, []string{"python3", "-m", "http.server"}) {
		t.Errorf("got kind %q, command %q; want custom with the command as given", s.Kind, s.Command)
	}
}

func TestApplyDefaultsRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		want string
	}{
		{"bad name", Spec{Name: "a b"}, "a name is 1 to 64"},
		{"device name", Spec{Name: "aux"}, "AUX is a device name on Windows"},
		{"custom without command", Spec{Kind: settings.KindCustom}, "needs a command"},
		{"ready pattern without group", Spec{ReadyRegex: `READY`}, "needs a group for the port"},
		{"ready pattern that does not compile", Spec{ReadyRegex: `(`}, "not a valid regular expression"},
		{"relative health path", Spec{HealthPath: "health"}, "must start with /"},
		{"negative grace", Spec{Grace: -time.Second}, "negative grace"},
		{"negative start timeout", Spec{StartTimeout: -time.Second}, "negative grace or start timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.ApplyDefaults(self)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestResolveCommandFindsHermes: with hermes on PATH, a Hermes kind runs
// it, and the command line it gets is the contract's plus the extra args.
func TestResolveCommandFindsHermes(t *testing.T) {
	path := fakeHermes(t)
	for _, kind := range []settings.Kind{settings.KindDashboard, settings.KindServe} {
		argv, why := ResolveCommand(self, kind, []string{"--profile", "work"})
		if argv[0] != path || !strings.Contains(why, path) {
			t.Errorf("%s: got %q (%s), want %s from PATH", kind, argv, why, path)
			continue
		}
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		if err != nil {
			t.Fatalf("%s: run %q: %v", kind, argv, err)
		}
		got := strings.Fields(string(out))
		want := append(hermes.LocalArgs(verb(kind)), "--profile", "work")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: hermes got %q, want %q", kind, got, want)
		}
	}
}

// TestResolveCommandFallsBackToBuiltin: without hermes on PATH, the
// desktop's own executable serves the same verb.
func TestResolveCommandFallsBackToBuiltin(t *testing.T) {
	noHermes(t)
	argv, why := ResolveCommand(self, settings.KindServe, nil)
	want := append([]string{self}, hermes.LocalArgs(hermes.VerbServe)...)
	if !reflect.DeepEqual(argv, want) || !strings.Contains(why, "built-in") {
		t.Errorf("got %q (%s), want %q, the built-in backend", argv, why, want)
	}
}

func TestFromSettingCustomCommandIsSplit(t *testing.T) {
	// Double quotes read the same under POSIX and Windows quoting.
	b := settings.Backend{Name: "web", Kind: settings.KindCustom, Command: `sh -c "echo port 1"`}
	s, err := FromSetting(b, settings.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sh", "-c", "echo port 1"}
	if !reflect.DeepEqual(s.Command, want) || s.Kind != settings.KindCustom || s.Disabled {
		t.Errorf("got %+v, want command %q, custom, enabled", s, want)
	}
	if !reflect.DeepEqual(s.Setting, b) {
		t.Errorf("Setting: got %+v, want the backend as configured, %+v", s.Setting, b)
	}
}

// TestFromSettingOwnThenShared: a backend's own ready pattern, health path
// and grace win over the shared ones, which win over the defaults (left
// zero for ApplyDefaults).
func TestFromSettingOwnThenShared(t *testing.T) {
	off := false
	shared := settings.Settings{ReadyRegex: `shared (\d+)`, HealthPath: "/shared", Grace: "7s"}
	for _, tc := range []struct {
		name   string
		b      settings.Backend
		shared settings.Settings
		want   Spec
	}{
		{"own", settings.Backend{Name: "a", Kind: settings.KindServe, ReadyRegex: `own (\d+)`, HealthPath: "/own", Grace: "2s"}, shared,
			Spec{ReadyRegex: `own (\d+)`, HealthPath: "/own", Grace: 2 * time.Second}},
		{"shared", settings.Backend{Name: "a", Kind: settings.KindServe}, shared,
			Spec{ReadyRegex: `shared (\d+)`, HealthPath: "/shared", Grace: 7 * time.Second}},
		{"defaults", settings.Backend{Name: "a", Kind: settings.KindServe, Enabled: &off}, settings.Settings{},
			Spec{Disabled: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := FromSetting(tc.b, tc.shared)
			if err != nil {
				t.Fatal(err)
			}
			got := Spec{ReadyRegex: s.ReadyRegex, HealthPath: s.HealthPath, Grace: s.Grace, Disabled: s.Disabled}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestFromSettingCarriesHost: a backend's host reaches the spec and the
// setting saved back (the Add backend form's Host field).
func TestFromSettingCarriesHost(t *testing.T) {
	b := settings.Backend{Name: "far", Kind: settings.KindServe, Host: "me@build-box"}
	s, err := FromSetting(b, settings.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Host != b.Host || s.Setting.Host != b.Host {
		t.Errorf("got host %q, setting's %q; want %q in both", s.Host, s.Setting.Host, b.Host)
	}
}

func TestFromSettingRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		b      settings.Backend
		shared settings.Settings
	}{
		{"custom with args", settings.Backend{Name: "a", Kind: settings.KindCustom, Command: "srv", Args: []string{"-v"}}, settings.Settings{}},
		{"unknown kind", settings.Backend{Name: "a", Kind: "daemon"}, settings.Settings{}},
		{"shared grace that is no duration", settings.Backend{Name: "a", Kind: settings.KindServe}, settings.Settings{Grace: "soon"}},
		{"host that ssh would read as an option", settings.Backend{Name: "a", Kind: settings.KindServe, Host: "-oProxyCommand=x"}, settings.Settings{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if s, err := FromSetting(tc.b, tc.shared); err == nil {
				t.Errorf("got %+v, want an error", s)
			}
		})
	}
}

func TestKindsOwnedAndPaged(t *testing.T) {
	for _, tc := range []struct {
		kind         settings.Kind
		owned, paged bool
	}{
		{settings.KindDashboard, false, true},
		{settings.KindServe, true, false},
		{settings.KindCustom, true, true},
	} {
		s := Spec{Kind: tc.kind}
		if s.DesktopOwned() != tc.owned || s.ServesPage() != tc.paged {
			t.Errorf("%s: DesktopOwned %v, ServesPage %v; want %v, %v", tc.kind, s.DesktopOwned(), s.ServesPage(), tc.owned, tc.paged)
		}
	}
}
