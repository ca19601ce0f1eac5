package testbin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"hermes-desktop/contract/hermes"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// hermesRun is one `hermes ARGS` started through PATH, as a launcher does.
type hermesRun struct {
	cmd            *exec.Cmd
	stdout, stderr *Lines
	exited         chan struct{}
}

// startHermes runs `hermes ARGS` with the fake first on PATH, through
// `sh -c 'exec hermes "$@"'` so the lookup is the shell's, and every exec
// keeps the PID: the backend's PID is cmd's. The test's cleanup kills it.
func startHermes(t *testing.T, env []string, args ...string) *hermesRun {
	t.Helper()
	dir := FakeHermes(t)
	cmd := exec.Command("sh", append([]string{"-c", `exec hermes "$@"`, "hermes"}, args...)...)
	cmd.Env = append(NewEnv(Tag(t), t.TempDir()), env...)
	cmd.Env = append(cmd.Env, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	outR, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &hermesRun{cmd: cmd, stdout: newLines(outR), stderr: newLines(errR), exited: make(chan struct{})}
	go func() { // the only waiter; ends when the process exits
		r.stdout.wait()
		r.stderr.wait()
		_ = cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // ours; once it has exited this does nothing
		<-r.exited
	})
	return r
}

func (r *hermesRun) waitExit(t *testing.T) int {
	t.Helper()
	select {
	case <-r.exited:
		return r.cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		t.Fatalf("hermes still running after 30 s\nstdout:\n%s", r.stdout.String())
		return -1
	}
}

var anyReady = regexp.MustCompile(`^(HERMES_BACKEND_READY|HERMES_DASHBOARD_READY) port=(\d+)$`)

// waitServer waits for the READY line and checks that the server behind it
// is the process the test started.
func (r *hermesRun) waitServer(t *testing.T, wantPrefix string) {
	t.Helper()
	m, err := r.stdout.WaitMatchN(anyReady, 1, 30*time.Second)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, r.stderr.String())
	}
	if m[1] != wantPrefix {
		t.Errorf("ready line: got %s, want %s", m[1], wantPrefix)
	}
	resp, err := http.Get("http://127.0.0.1:" + m[2] + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var status struct{ PID int }
	if err := json.NewDecoder(resp.Body).Decode(&status); err != nil || status.PID != r.cmd.Process.Pid {
		t.Errorf("server pid: got %d (%v), want %d (exec all the way)", status.PID, err, r.cmd.Process.Pid)
	}
}

// deadPID returns the PID of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestFakeHermes(t *testing.T) {
	dashboard := []string{"dashboard", "--no-open", "--host", "127.0.0.1", "--port", "0"}
	for _, tc := range []struct {
		name string
		args []string
		// setup returns the test's extra environment and, for a run that
		// attaches, the host's port.
		setup     func(t *testing.T) (env []string, hostPort int)
		wantReady string // the READY line's word; "" means it exits
		wantCode  int
	}{
		{
			name:      "serve starts the built-in serve",
			args:      []string{"serve", "--host", "127.0.0.1", "--port", "0"},
			setup:     func(t *testing.T) ([]string, int) { return []string{hermes.EnvGatewayLockDir + "=" + t.TempDir()}, 0 },
			wantReady: "HERMES_BACKEND_READY",
		},
		{
			name:      "dashboard without a host record starts a dashboard",
			args:      dashboard,
			setup:     func(t *testing.T) ([]string, int) { return []string{hermes.EnvGatewayLockDir + "=" + t.TempDir()}, 0 },
			wantReady: "HERMES_DASHBOARD_READY",
		},
		{
			name: "dashboard with a dead host's record starts a dashboard",
			args: dashboard,
			setup: func(t *testing.T) ([]string, int) {
				dir := t.TempDir()
				if err := WriteHostRecord(dir, HostRecord{PID: deadPID(t), Port: 1}); err != nil {
					t.Fatal(err)
				}
				return []string{hermes.EnvGatewayLockDir + "=" + dir}, 0
			},
			wantReady: "HERMES_DASHBOARD_READY",
		},
		{
			name: "dashboard with a live host attaches and exits 0",
			args: dashboard,
			setup: func(t *testing.T) ([]string, int) {
				dir := t.TempDir()
				return []string{hermes.EnvGatewayLockDir + "=" + dir}, StartHostDashboard(t, dir)
			},
		},
		{
			name: "host record under XDG_STATE_HOME without HERMES_GATEWAY_LOCK_DIR",
			args: dashboard,
			setup: func(t *testing.T) ([]string, int) {
				state := t.TempDir()
				return []string{"XDG_STATE_HOME=" + state}, StartHostDashboard(t, filepath.Join(state, "hermes", "gateway-locks"))
			},
		},
		{
			name: "HERMES_FAKE_REFUSE=1 refuses with 78",
			args: dashboard,
			setup: func(t *testing.T) ([]string, int) {
				return []string{hermes.EnvGatewayLockDir + "=" + t.TempDir(), FakeRefuseEnv + "=1"}, 0
			},
			wantCode: hermes.ExitRefused,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, hostPort := tc.setup(t)
			r := startHermes(t, env, tc.args...)
			if tc.wantReady != "" {
				r.waitServer(t, tc.wantReady)
				return
			}
			if code := r.waitExit(t); code != tc.wantCode {
				t.Fatalf("exit: got %d, want %d\nstderr:\n%s", code, tc.wantCode, r.stderr.String())
			}
			out := r.stdout.String()
			if strings.Contains(out, "_READY") {
				t.Errorf("stdout %q: a server started, want none", out)
			}
			if hostPort != 0 {
				want := fmt.Sprintf("%shttp://127.0.0.1:%d/", AlreadyRunningPrefix, hostPort)
				if out != want {
					t.Errorf("stdout: got %q, want %q", out, want)
				}
				checkAlive(t, hostPort)
			}
		})
	}
}

// checkAlive: attaching leaves the host serving.
func checkAlive(t *testing.T, port int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("http://127.0.0.1:%d/api/status", port), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("host after attach: %v", err)
	}
	resp.Body.Close()
}

// The script's quoting survives a binary path with spaces and quotes.
func TestShQuote(t *testing.T) {
	for _, s := range []string{"/tmp/a b/hermes-desktop", "/tmp/it's/x", `/tmp/"$x"/y`} {
		out, err := exec.Command("sh", "-c", "printf %s "+shQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("shQuote(%q): sh printed %q (%v), want it back", s, out, err)
		}
	}
}
