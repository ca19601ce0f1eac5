package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"hermes-desktop/contract/hermes"
)

var dashboardReady = regexp.MustCompile(`^` + regexp.QuoteMeta(hermes.DashboardReadyPrefix) + `(\d+)$`)

// StartHostDashboard starts the "host backend" of an attach test: the built
// binary's `dashboard --host 127.0.0.1 --port 0`, under a tag of the test's
// own, and, once it is ready, writes its host record ({"pid":N,"port":P})
// into lockDir, as Hermes does for the dashboard it hosts. A FakeHermes
// `hermes dashboard` run with HERMES_GATEWAY_LOCK_DIR=lockDir then attaches
// to it (DESIGN.md, "Hermes interop contract"). The test's cleanup kills the
// host and removes the record.
func StartHostDashboard(t testing.TB, lockDir string) (port int) {
	t.Helper()
	cmd := exec.Command(Path(t), hermes.VerbDashboard, hermes.FlagHost, hermes.LoopbackIP, hermes.FlagPort, hermes.PortAny)
	cmd.Env = NewEnv(Tag(t), t.TempDir())
	outR, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start host dashboard: %v", err)
	}
	stdout, stderr := newLines(outR), newLines(errR)
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // ours: started above, and not yet waited for
		stdout.wait()
		stderr.wait()
		_ = cmd.Wait()
		_ = os.Remove(filepath.Join(lockDir, HostRecordName))
	})
	m, err := stdout.WaitMatchN(dashboardReady, 1, 30*time.Second)
	if err != nil {
		t.Fatalf("host dashboard: %v\nstderr:\n%s", err, stderr.String())
	}
	port, _ = strconv.Atoi(m[1])
	if err := WriteHostRecord(lockDir, HostRecord{PID: cmd.Process.Pid, Port: port}); err != nil {
		t.Fatal(err)
	}
	return port
}
