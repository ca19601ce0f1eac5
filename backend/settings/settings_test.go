package settings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"hermes-desktop/lockfile/lockfiletest"
)

func TestSettingsValidate(t *testing.T) {
	cases := []struct {
		s    Settings
		want string // "" = valid
	}{
		{Settings{}, ""},
		{Settings{BackendCommand: "hermes serve --port 0", ReadyRegex: `port (\d+)`, HealthPath: "/", Grace: "2s", MinOrphanAge: "10m"}, ""},
		{Settings{BackendCommand: `"unterminated`}, `Backend command: a " quote is not closed`}, // a quote every system's quoting reads
		{Settings{ReadyRegex: "port [0-9]+"}, "Ready pattern: needs a group for the port"},
		{Settings{ReadyRegex: "(("}, "Ready pattern: not a valid regular expression: missing closing )"},
		{Settings{HealthPath: "api/health"}, "must start with /"},
		{Settings{Grace: "soon"}, "not a duration"},
		{Settings{Grace: "0s"}, "Stop grace period: must be between 1 ms and 10 min, not 0 ms"},
		{Settings{MinOrphanAge: "-3m"}, "must be between 1 s and 7 d, not -3 min"},
		{Settings{MinOrphanAge: "0s"}, "must be between"}, // only a flag may ask for no minimum
		{Settings{SampleInterval: "1ms"}, "must be between"},
		{Settings{MaxDuplicateChildren: -1}, "must be between"},
		{Settings{NofileSoftLimit: ptr(-5)}, "must be between"},
		{Settings{NofileSoftLimit: ptr(0), MaxDuplicateChildren: 2, SampleInterval: "1s", RestartOnFDPressure: true}, ""},
		{Settings{Backends: []Backend{{Name: "work", Kind: KindDashboard, Args: []string{"--profile", "work"}}, {Name: "api", Kind: KindServe}, {Name: "web", Kind: KindCustom, Command: "python3 -m http.server"}}}, ""},
		{Settings{Backends: []Backend{{Name: "a", Kind: KindServe}, {Name: "a", Kind: KindDashboard}}}, "another backend has this name"},
		// One log file where file names ignore case; device names on Windows.
		{Settings{Backends: []Backend{{Name: "A", Kind: KindServe}, {Name: "a", Kind: KindDashboard}}}, "another backend has this name"},
		{Settings{Backends: []Backend{{Name: "NUL", Kind: KindServe}}}, "NUL is a device name on Windows"},
		{Settings{Backends: []Backend{{Name: "com3.x", Kind: KindServe}}}, "COM3 is a device name on Windows"},
		{Settings{Backends: []Backend{{Name: "console", Kind: KindServe}, {Name: "com10", Kind: KindServe}, {Name: "lpt", Kind: KindServe}}}, ""},
		{Settings{Backends: []Backend{{Name: "-x", Kind: KindServe}}}, "a name is"},
		{Settings{Backends: []Backend{{Name: "x", Kind: "gateway"}}}, "not dashboard, serve or custom"},
		{Settings{Backends: []Backend{{Name: "x", Kind: KindCustom}}}, "needs a command"},
		{Settings{Backends: []Backend{{Name: "x", Kind: KindServe, Command: "hermes serve"}}}, "only a custom backend"},
		{Settings{Backends: []Backend{{Name: "x", Kind: KindCustom, Command: "a", Args: []string{"b"}}}}, "in its command"},
		// A backend's own ready pattern, health path and grace: the shared
		// settings' rules and words.
		{Settings{Backends: []Backend{{Name: "web", Kind: KindCustom, Command: "python3 -m http.server 0", ReadyRegex: `port (\d+)`, HealthPath: "/", Grace: "3s"}}}, ""},
		{Settings{Backends: []Backend{{Name: "web", Kind: KindCustom, Command: "a", ReadyRegex: "port [0-9]+"}}}, "backend web: Ready pattern: needs a group for the port"},
		{Settings{Backends: []Backend{{Name: "web", Kind: KindCustom, Command: "a", ReadyRegex: "(("}}}, "backend web: Ready pattern: not a valid regular expression: missing closing )"},
		{Settings{Backends: []Backend{{Name: "web", Kind: KindCustom, Command: "a", HealthPath: "health"}}}, "backend web: Health check path: must start with /"},
		{Settings{Backends: []Backend{{Name: "web", Kind: KindCustom, Command: "a", Grace: "soon"}}}, "backend web: Stop grace period: \"soon\" is not a duration"},
		{Settings{Backends: []Backend{{Name: "web", Kind: KindCustom, Command: "a", Grace: "11m"}}}, "backend web: Stop grace period: must be between 1 ms and 10 min, not 11 min"},
		{Settings{Backends: []Backend{{Name: "api", Kind: KindServe, Grace: "0s"}}}, "backend api: Stop grace period"},
		{Settings{UpdateFeed: "https://example.com/hermes-desktop/stable.json", UpdateAutomatically: true}, ""},
		{Settings{UpdateFeed: "http://127.0.0.1:8080/stable.json"}, ""},
		{Settings{UpdateFeed: "http://[::1]/feed/"}, ""},
		{Settings{UpdateFeed: "http://example.com/stable.json"}, "must be https"},
		{Settings{UpdateFeed: "ftp://example.com/stable.json"}, "must be https"},
		{Settings{UpdateFeed: "example.com/stable.json"}, "not an absolute URL"},
		{Settings{UpdateFeed: "https://" + strings.Repeat("x", 2048)}, "longer than"},
		{Settings{UpdateFeed: "https://" + strings.Repeat("x", 2040)}, ""}, // 2048 bytes: the limit
	}
	for _, tc := range cases {
		err := tc.s.Validate()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want %q", tc.s, err, tc.want)
		}
	}
}

// TestValidateFeedURLVectors checks feed URLs where parsers disagree (the
// page asks this rule through App.FeedURLError, never a copy of it): each
// one's category, by the words of its error.
func TestValidateFeedURLVectors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "feed_urls.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vectors map[string]any
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	words := map[string]string{"ok": "", "insecure": "must be https", "not-absolute": "not an absolute URL"}
	for category, want := range words {
		urls, _ := vectors[category].([]any)
		if len(urls) == 0 {
			t.Errorf("%s: no vectors", category)
		}
		for _, u := range urls {
			err := ValidateFeedURL(u.(string))
			if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
				t.Errorf("%q: got %v, want %s", u, err, category)
			}
		}
	}
}

func TestLoadSettingsSetsBadFilesAside(t *testing.T) {
	for name, content := range map[string]string{
		"not json":      "{",
		"unknown field": `{"grace":"1s","surprise":true}`,
		"invalid value": `{"grace":"whenever"}`,
		"wrong type":    `{"start_at_login":"yes"}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := Path(dir)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			s, notice := Load(dir)
			if !reflect.DeepEqual(s, Settings{}) || !strings.Contains(notice, "set aside") || !strings.Contains(notice, "defaults are in use") {
				t.Errorf("got %+v, notice %q", s, notice)
			}
			if kept, err := os.ReadFile(path + ".corrupt"); err != nil || string(kept) != content {
				t.Errorf("the bad file was not kept as .corrupt: %v", err)
			}
		})
	}
}

func TestSaveAndLoad(t *testing.T) {
	dir := t.TempDir()
	want := Settings{BackendCommand: "python3 -m http.server --bind 127.0.0.1 0", ReadyRegex: `port (\d+)`, HealthPath: "/", Grace: "1s", StartAtLogin: true}
	if err := Save(dir, want); err != nil {
		t.Fatal(err)
	}
	lockfiletest.WantPrivate(t, filepath.Join(dir, File), 0o600)
	got, notice := Load(dir)
	if !reflect.DeepEqual(got, want) || notice != "" {
		t.Errorf("got %+v %q, want %+v", got, notice, want)
	}
}

func ptr(n int) *int { return &n }

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"backend_command":"hermes serve --host 127.0.0.1 --port 0","grace":"5s","nofile_soft_limit":0}`))
	f.Add([]byte(`{"ready_regex":"port (\\d+)","health_path":"/","max_duplicate_children":2}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted settings do not validate: %v", err)
		}
		again, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if s2, err := Parse(again); err != nil || !reflect.DeepEqual(s, s2) {
			t.Fatalf("round trip: %+v -> %+v (%v)", s, s2, err)
		}
	})
}

// A field's error reads as the person sees the field, once: its label
// and plain words, not regexp's text with the pattern twice (issue 23).
func TestValidateSaysTheFieldOnce(t *testing.T) {
	err := Settings{ReadyRegex: "((("}.Validate()
	got := err.Error()
	if want := "Ready pattern: not a valid regular expression: missing closing )"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Every fault of a backend at once, one per line, each naming it: the Add
// form showed them in rounds (issue 31, item 7).
func TestBackendValidateSaysEveryFault(t *testing.T) {
	err := Backend{Name: "x", Kind: KindCustom, Host: "-bad", ReadyRegex: "(", Grace: "soon"}.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	for _, want := range []string{"needs a command", "Host:", "Ready pattern:", "Stop grace period:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want it to say %q", err, want)
		}
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "backend x: ") {
			t.Errorf("line %q does not name the backend", l)
		}
	}
}
