package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hermes-desktop/backend/settings"
)

// TestBoundMethodsAreApps: the interface lists exactly the exported methods
// of the root App, each with the promise its results make.
func TestBoundMethodsAreApps(t *testing.T) {
	root, _ := moduleRoot(t)
	out, err := render(models, enums, methodsOf(root))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Join(declaration(t, string(out), "interface BoundApp"), "\n")
	for _, want := range []string{
		"  Status(): Promise<Status>;",                                                 // (T, error)
		"  Restart(name: string): Promise<void>;",                                      // error alone
		"  Logs(name: string, after: number, max: number): Promise<LogLine[] | null>;", // a nil slice is null
		"  ReapOrphans(pids: number[]): Promise<ReapReport>;",                          // a pointer answered with nil error
		"  SaveSettings(e: SettingsEdit): Promise<SettingsView>;",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("got no %q in BoundApp:\n%s", want, body)
		}
	}
}

// TestBoundMethodsRefuse: what go/ast cannot read right is refused.
func TestBoundMethodsRefuse(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"embedded", "package main\ntype Inner struct{}\nfunc (Inner) Hidden() {}\ntype App struct{ Inner }\nfunc (a *App) X() {}\n", "embeds"},
		{"unknown type", "package main\nimport \"time\"\ntype App struct{}\nfunc (a *App) X(d time.Month) error { return nil }\n", "not in the models table"},
		{"two results", "package main\ntype App struct{}\nfunc (a *App) X() (string, int, error) { return \"\", 0, nil }\n", "at most one result"},
		{"two signatures", "package main\ntype App struct{}\nfunc (a *App) X() error { return nil }\n", "different signatures"},
		{"none", "package main\ntype App struct{}\nfunc (a *App) x() {}\n", "no exported methods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "app.go"), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.name == "two signatures" {
				other := "//go:build windows\n\npackage main\nfunc (a *App) X() (string, error) { return \"\", nil }\n"
				if err := os.WriteFile(filepath.Join(dir, "app_windows.go"), []byte(other), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := render(models, enums, methodsOf(dir))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestOptionsSection: the page's keys are settings.Options' editable ones,
// checkboxes typed boolean, each text field labelled as Go labels it.
func TestOptionsSection(t *testing.T) {
	out, err := render(models, enums, writeOptions)
	if err != nil {
		t.Fatal(err)
	}
	draft := strings.Join(declaration(t, string(out), "interface SettingsDraft"), "\n")
	for _, key := range settings.EditableKeys() {
		if !strings.Contains(draft, "  "+key+": ") {
			t.Errorf("SettingsDraft: got no %s", key)
		}
	}
	for _, want := range []string{"  start_at_login: boolean;", "  grace: string;"} {
		if !strings.Contains(draft, want) {
			t.Errorf("SettingsDraft: got no %q", want)
		}
	}
	for key, label := range settings.Labels {
		if key == "host" {
			continue // a backend's, not the Settings page's
		}
		if want := "  " + key + ": " + quote(label) + ","; !strings.Contains(string(out), want) {
			t.Errorf("FIELD_LABELS: got no %q", want)
		}
	}
}

// TestEmbeddedFlattenAsJSON: an embedded struct's fields are the parent's,
// where encoding/json writes them, and a field nearer the top hides one
// deeper down; the keys come out as json.Marshal writes them.
func TestEmbeddedFlattenAsJSON(t *testing.T) {
	type inner struct {
		B string `json:"b"`
		X int    `json:"x"` // hidden by outer's x
	}
	type deep struct{ inner }
	type outer struct {
		A string `json:"a"`
		deep
		X int    `json:"x"`
		C string `json:"c,omitempty"`
	}
	out, err := render([]model{modelOf[outer]("Outer")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range declaration(t, string(out), "interface Outer") {
		key, _, _ := strings.Cut(strings.TrimSpace(line), ":")
		got = append(got, strings.TrimSuffix(key, "?"))
	}
	data, err := json.Marshal(outer{A: "1", deep: deep{inner{B: "2", X: 3}}, X: 4, C: "5"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	dec := json.NewDecoder(bytes.NewReader(data))
	for tok, err := dec.Token(); err == nil; tok, err = dec.Token() {
		if k, ok := tok.(string); ok && dec.More() {
			want = append(want, k)
			_, _ = dec.Token() // its value
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("got keys %q, want %q as json.Marshal writes them", got, want)
	}
}
