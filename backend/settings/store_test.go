package settings

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"sync"
	"testing"
)

// writeConfig puts raw JSON in dir's config.json, as a user or an earlier
// run left it.
func writeConfig(t *testing.T, dir, raw string) {
	t.Helper()
	if err := os.WriteFile(Path(dir), []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
}

// readConfig decodes dir's config.json as the next start would.
func readConfig(t *testing.T, dir string) Settings {
	t.Helper()
	s, notice := Load(dir)
	if notice != "" {
		t.Fatalf("config.json unusable: %s", notice)
	}
	return s
}

func names(bs []Backend) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

// TestStoreEditKeepsBackendsAddedSincePageOpened is issue 23's data loss:
// the Settings page opened with one backend, the user added a second on the
// Backends page, then saved a new grace period from the page's old copy.
// The second backend must still be in config.json, and a relaunch's Load
// must see it.
func TestStoreEditKeepsBackendsAddedSincePageOpened(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `{"backends":[{"name":"hermes","kind":"dashboard"}],"backend_command":"","ready_regex":"","health_path":"","grace":"","min_orphan_age":"","start_at_login":false}`)
	st := NewStore(dir)
	opened, _ := st.Load() // the page's copy

	web := Backend{Name: "web", Kind: KindCustom, Command: "python3 -m http.server 0"}
	if _, err := st.EditBackends(func(saved Settings) ([]Backend, error) { return append(saved.Backends, web), nil }); err != nil {
		t.Fatal(err)
	}
	stale := opened
	stale.Grace = "7s"
	saved, err := st.Edit(Edit{Settings: stale, Fields: []string{"grace"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Settings{saved, readConfig(t, dir)} {
		if got, want := names(s.Backends), []string{"hermes", "web"}; !slices.Equal(got, want) {
			t.Errorf("backends: got %v, want %v", got, want)
		}
		if s.Grace != "7s" {
			t.Errorf("grace: got %q, want 7s", s.Grace)
		}
	}
}

// TestStoreEditDoesNotResurrectRemovedBackend: the page opened with two
// backends, one was removed, then a setting saved: it stays removed.
func TestStoreEditDoesNotResurrectRemovedBackend(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `{"backends":[{"name":"hermes","kind":"dashboard"},{"name":"api","kind":"serve"}],"backend_command":"","ready_regex":"","health_path":"","grace":"","min_orphan_age":"","start_at_login":false}`)
	st := NewStore(dir)
	opened, _ := st.Load()
	removeAPI := func(saved Settings) ([]Backend, error) {
		return slices.DeleteFunc(saved.Backends, func(b Backend) bool { return b.Name == "api" }), nil
	}
	if _, err := st.EditBackends(removeAPI); err != nil {
		t.Fatal(err)
	}
	// Even a page that sends the whole old copy and names "everything" it
	// may: the list is not among them.
	opened.MinOrphanAge = "10m"
	if _, err := st.Edit(Edit{Settings: opened, Fields: []string{"min_orphan_age", "grace", "ready_regex"}}); err != nil {
		t.Fatal(err)
	}
	s := readConfig(t, dir)
	if got, want := names(s.Backends), []string{"hermes"}; !slices.Equal(got, want) {
		t.Errorf("backends: got %v, want %v", got, want)
	}
	if s.MinOrphanAge != "10m" {
		t.Errorf("min_orphan_age: got %q, want 10m", s.MinOrphanAge)
	}
}

// TestStoreEditChangesOnlyNamedFields: values the edit carries for fields
// it does not name are not saved; fields unknown to the page survive.
func TestStoreEditChangesOnlyNamedFields(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `{"backend_command":"","ready_regex":"port (\\d+)","health_path":"/up","grace":"2s","min_orphan_age":"","start_at_login":false,"update_feed":"https://example.com/stable.json","nofile_soft_limit":0}`)
	st := NewStore(dir)
	edit := Edit{Settings: Settings{Grace: "9s", HealthPath: "/stale"}, Fields: []string{"grace", "update_automatically"}}
	edit.Settings.UpdateAutomatically = true
	if _, err := st.Edit(edit); err != nil {
		t.Fatal(err)
	}
	got := readConfig(t, dir)
	want := Settings{ReadyRegex: `port (\d+)`, HealthPath: "/up", Grace: "9s", UpdateFeed: "https://example.com/stable.json", UpdateAutomatically: true, NofileSoftLimit: ptr(0)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestEditRefuses(t *testing.T) {
	listed := Settings{Backends: []Backend{{Name: "hermes", Kind: KindDashboard}}}
	cases := []struct {
		name string
		cur  Settings
		edit Edit
		want error
	}{
		{"the backend list", Settings{}, Edit{Settings: listed, Fields: []string{"backends"}}, ErrNotEditable},
		{"an unknown field", Settings{}, Edit{Fields: []string{"colour"}}, ErrNotEditable},
		{"a command a list would ignore", listed, Edit{Settings: Settings{BackendCommand: "serve --port 0"}, Fields: []string{"backend_command"}}, ErrBackendCommandUnused},
		{"clearing an unused command", Settings{Backends: listed.Backends, BackendCommand: "old"}, Edit{Fields: []string{"backend_command"}}, nil},
		{"a command without a list", Settings{}, Edit{Settings: Settings{BackendCommand: "serve --port 0"}, Fields: []string{"backend_command"}}, nil},
	}
	for _, tc := range cases {
		if _, err := tc.edit.Apply(tc.cur); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestStoreConcurrentChangesKeepEveryBackend: Settings saves racing with
// backends being added, each add an edit of the list as saved: the file
// ends with every backend and the last edit.
func TestStoreConcurrentChangesKeepEveryBackend(t *testing.T) {
	dir := t.TempDir()
	st := NewStore(dir)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			add := Backend{Name: "b" + string(rune('0'+i)), Kind: KindServe}
			if _, err := st.EditBackends(func(saved Settings) ([]Backend, error) { return append(saved.Backends, add), nil }); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if _, err := st.Edit(Edit{Settings: Settings{Grace: "3s"}, Fields: []string{"grace"}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s := readConfig(t, dir)
	if len(s.Backends) != 8 || s.Grace != "3s" {
		raw, _ := json.Marshal(s)
		t.Errorf("got %s, want 8 backends and grace 3s", raw)
	}
}
