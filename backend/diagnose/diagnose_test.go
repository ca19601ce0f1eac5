package diagnose

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/model"
)

// A state with secrets planted everywhere a person's could be: the
// environment (a bare value in a log line only the exact match catches),
// log lines, a rotated log, config.json's command line and the status.
// The archive holds every file the issue lists and none of the secrets.
func TestReportHoldsTheFilesAndNoSecret(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HERMES_DASHBOARD_SESSION_TOKEN", "planted-env-0f3a9c")
	write("config.json", `{"backends": [{"name": "web", "kind": "custom", "command": "srv --api-key planted-cfg-1 --token=planted-cfg-2"}]}`)
	write("launcher.log", "level=INFO msg=started\n")
	write("launcher.log.1", "level=INFO msg=old url=http://127.0.0.1:1/?token=planted-url-3\n")
	write("logs/web.log", strings.Join([]string{
		"stdout GET / Authorization: Bearer planted-hdr-4",
		"stdout X-Hermes-Session-Token: planted-hdr-5",
		`stdout window.__HERMES_SESSION_TOKEN__ = "planted-page-6";`,
		"stdout the session is planted-env-0f3a9c", // only the exact value says so
		`stdout {"api_key": "planted-json-7", "max_tokens": 5}`,
	}, "\n")+"\n")
	write("logs/web.log.1", "stdout HERMES_DASHBOARD_SESSION_TOKEN=planted-rot-8\n")
	write("updates/rollback.json", `{"from": "1.1.0", "to": "1.0.0"}`)
	write("updates/probation.json", `{"version": "1.1.0"}`)
	if runtime.GOOS != "windows" {
		if err := os.Symlink("/etc/passwd", filepath.Join(dir, "logs", "evil.log")); err != nil {
			t.Fatal(err)
		}
	}
	st := &model.Status{Instance: model.InstanceInfo{PID: os.Getpid(), UI: "headless"},
		Backends: []model.BackendStatus{{Name: "web", LastError: "exit 1: Authorization: Bearer planted-st-9"}}}

	var buf bytes.Buffer
	sum, err := Write(&buf, Input{StateDir: dir, Status: st, Version: "1.2.3", Now: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var all strings.Builder
	for _, f := range z.File {
		names = append(names, f.Name)
		r, _ := f.Open()
		data, _ := io.ReadAll(r)
		r.Close()
		all.Write(data)
	}
	for _, want := range []string{"status.json", "facts.txt", "config.json", "launcher.log", "launcher.log.1",
		"logs/web.log", "logs/web.log.1", "updates/rollback.json", "updates/probation.json", "README.txt"} {
		if !slices.Contains(names, want) {
			t.Errorf("the report has no %s: %v", want, names)
		}
	}
	if slices.Contains(names, "logs/evil.log") || strings.Contains(all.String(), "root:") {
		t.Error("the report followed a symlink out of the state dir")
	}
	if text := all.String(); strings.Contains(text, "planted") {
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(l, "planted") {
				t.Errorf("a secret reached the archive: %s", l)
			}
		}
	}
	for _, want := range []string{"1.2.3", "go:", "backend web:", `"max_tokens"`} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the report does not say %q", want)
		}
	}
	if len(sum.Files) != len(names) {
		t.Errorf("summary lists %d files, the archive has %d", len(sum.Files), len(names))
	}
}

// A log past the per-file cap keeps its end, where the failure is.
func TestReportKeepsTheEndOfABigLog(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", MaxFileBytes) + "\nthe last line\n"
	if err := os.WriteFile(filepath.Join(dir, "logs", "a.log"), []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := Write(&buf, Input{StateDir: dir, StatusErr: "not running", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	z, _ := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	for _, f := range z.File {
		if f.Name != "logs/a.log" {
			continue
		}
		r, _ := f.Open()
		data, _ := io.ReadAll(r)
		r.Close()
		if len(data) > MaxFileBytes+100 || !strings.HasSuffix(string(data), "the last line\n") || !strings.HasPrefix(string(data), "[the first ") {
			t.Errorf("a.log in the report: %d bytes, ends %q", len(data), string(data[max(0, len(data)-20):]))
		}
		return
	}
	t.Error("logs/a.log is not in the report")
}

// A secret given as its own argument ("--token", "VALUE") in the status'
// command lines: one line while redacted, indented after.
func TestReportRedactsArgumentVectors(t *testing.T) {
	st := &model.Status{Backends: []model.BackendStatus{{Name: "web", Command: []string{"srv", "--token", "planted-argv-1", "--api-key=planted-argv-2", "--port", "0"}}}}
	var buf bytes.Buffer
	if _, err := Write(&buf, Input{StateDir: t.TempDir(), Status: st, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	z, _ := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	for _, f := range z.File {
		if f.Name != "status.json" {
			continue
		}
		r, _ := f.Open()
		data, _ := io.ReadAll(r)
		r.Close()
		if strings.Contains(string(data), "planted") || !strings.Contains(string(data), `"--port"`) || !strings.Contains(string(data), "\n  ") {
			t.Errorf("status.json: %s", data)
		}
		return
	}
	t.Error("no status.json")
}
