package e2e

import (
	"archive/zip"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
)

// `hermes-desktop diagnose` against a running app with secrets planted in
// its environment (which a backend inherits), in a backend's output and in
// config.json: the archive holds the logs, status, config and facts, and
// none of the secrets (issue 31, "Must hold").
func TestDiagnoseOfARunningAppHoldsNoSecret(t *testing.T) {
	l := testbin.StartLauncherEnv(t, []string{"HERMES_E2E_API_KEY=planted-env-5b1c"}, "--grace", "1s")
	l.WaitReady(1, readyWait)
	leak := "sh -c 'echo Authorization: Bearer planted-out-77aa; echo session planted-env-5b1c; echo READY port=1; exec sleep 60'"
	if out, errOut, code := l.CLI("backends", "add", "leak", "--kind", "custom", "--command", leak+" --token planted-cfg-9d", "--ready-regex", `READY port=(\d+)`); code != 0 {
		t.Fatalf("backends add: exit %d: %s%s", code, out, errOut)
	}
	// Its lines are in its log before the report is asked for.
	if !waitfor.Try(readyWait, func() bool { return strings.Contains(readLogs(t, l.StateDir), "session ") }) {
		t.Fatalf("the leak backend's lines never reached its log:\n%s", readLogs(t, l.StateDir))
	}
	report := filepath.Join(t.TempDir(), "report.zip")
	out, errOut, code := l.CLI("diagnose", "-o", report)
	if code != 0 || !strings.Contains(out, "saved the diagnostic report to "+report) {
		t.Fatalf("diagnose: exit %d: %s%s", code, out, errOut)
	}
	z, err := zip.OpenReader(report)
	must(t, err)
	defer z.Close()
	var names []string
	var all strings.Builder
	for _, f := range z.File {
		names = append(names, f.Name)
		r, err := f.Open()
		must(t, err)
		data, _ := io.ReadAll(r)
		r.Close()
		all.Write(data)
	}
	for _, want := range []string{"status.json", "facts.txt", "config.json", "launcher.log", "logs/leak.log", "logs/default.log", "README.txt"} {
		if !slices.Contains(names, want) {
			t.Errorf("the report has no %s: %v", want, names)
		}
	}
	if strings.Contains(all.String(), "planted") {
		for _, line := range strings.Split(all.String(), "\n") {
			if strings.Contains(line, "planted") {
				t.Errorf("a secret reached the report: %s", line)
			}
		}
	}
	stopAndCheck(t, l)
}
