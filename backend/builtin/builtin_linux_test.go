package builtin_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"hermes-desktop/backend/builtin"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

// builtinProc is a built-in backend a test started.
type builtinProc struct {
	cmd  *exec.Cmd
	port int
	tag  string // carried by it and every child it starts
}

// startServe runs `hermes-desktop serve` with extra env and args and returns
// the port from its READY line.
func startServe(t *testing.T, env []string, args ...string) (*exec.Cmd, int) {
	t.Helper()
	p := startBuiltin(t, "serve", env, args...)
	return p.cmd, p.port
}

// startBuiltin runs `hermes-desktop VERB --host 127.0.0.1 --port 0` plus
// args (VERB is serve or dashboard) and waits for the mode's READY line. The
// test's cleanup kills it.
func startBuiltin(t *testing.T, verb string, env []string, args ...string) builtinProc {
	t.Helper()
	prefix := hermes.ServeReadyPrefix
	if verb == "dashboard" {
		prefix = hermes.DashboardReadyPrefix
	}
	tag := testbin.Tag(t)
	cmd := exec.Command(testbin.Path(t), append([]string{verb, "--host", "127.0.0.1", "--port", "0"}, args...)...)
	cmd.Env = append(testbin.NewEnv(tag, t.TempDir()), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var port int
		if _, err := fmt.Sscanf(sc.Text(), prefix+"%d", &port); err == nil {
			go func() {
				for sc.Scan() {
				}
			}()
			return builtinProc{cmd: cmd, port: port, tag: tag}
		}
	}
	t.Fatalf("no %q line", prefix)
	return builtinProc{}
}

func TestServeContract(t *testing.T) {
	readyFile := filepath.Join(t.TempDir(), "ready.json")
	cmd, port := startServe(t, []string{hermes.EnvReadyFile + "=" + readyFile, hermes.EnvSessionToken + "=" + testToken})
	data, err := os.ReadFile(readyFile)
	if err != nil || strings.TrimSpace(string(data)) != fmt.Sprintf(`{"port":%d}`, port) {
		t.Errorf("ready file: got %q (%v)", data, err)
	}
	for _, path := range []string{"/api/health", "/api/status"} {
		req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
		req.Header.Set(hermes.SessionTokenHeader, testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if v["ok"] != true || int(v["pid"].(float64)) != cmd.Process.Pid {
			t.Errorf("%s: got %v", path, v)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("SIGTERM: exit %v, want 0", err)
	}
}

func TestServeExitCodeBeforeReady(t *testing.T) {
	cmd := exec.Command(testbin.Path(t), "serve", "--exit-code", "75")
	cmd.Env = testbin.NewEnv(testbin.Tag(t), t.TempDir())
	out, _ := cmd.Output()
	if cmd.ProcessState.ExitCode() != 75 || strings.Contains(string(out), hermes.ServeReadyPrefix) {
		t.Errorf("got exit %d, output %q; want 75 without READY", cmd.ProcessState.ExitCode(), out)
	}
}

// The built-in backend follows HERMES_PARENT_PID: when that process dies it
// exits within moments (pidfd), not at the next poll.
func TestServeExitsWhenParentDies(t *testing.T) {
	parent := exec.Command("sleep", "60")
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = parent.Process.Kill(); _ = parent.Wait() }()
	marker := startMarker(t, parent.Process.Pid)
	cmd, _ := startServe(t, []string{
		fmt.Sprintf("HERMES_PARENT_PID=%d", parent.Process.Pid),
		"HERMES_PARENT_START_MARKER=" + marker,
		"HERMES_PARENT_NONCE=00112233445566778899aabbccddeeff",
	})
	_ = parent.Process.Kill()
	_ = parent.Wait()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not exit after its parent died")
	}
}

func startMarker(t *testing.T, pid int) string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return "linux:" + fields[19]
}

func TestServeIgnoresSIGTERMWhenAsked(t *testing.T) {
	cmd, _ := startServe(t, nil, "--ignore-sigterm")
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		t.Fatal("exited on SIGTERM despite --ignore-sigterm")
	case <-time.After(300 * time.Millisecond):
	}
	_ = cmd.Process.Kill()
	<-done
}

// --daemonize-every leaves, each period, a daemon that has nothing of the
// backend: not its child, not in its session, an empty environment. Only
// the cgroup the backend was born in still holds it.
func TestDaemonizeEvery(t *testing.T) {
	cg := testbin.Cgroup(t)
	label := "daemon-" + testbin.NewTag()
	cmd := exec.Command(testbin.Path(t), "serve", "--host", "127.0.0.1", "--port", "0",
		"--daemonize-every", "50ms", "--daemon-label", label)
	cmd.Env = testbin.NewEnv(testbin.Tag(t), t.TempDir())
	if err := testbin.StartIn(cmd, cg); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cg.Kill() // the backend and its daemons: all born in the test's cgroup
		_ = cmd.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = cg.WaitEmpty(ctx)
	}()
	var daemons []int
	if !waitfor.Try(10*time.Second, func() bool {
		daemons = daemons[:0]
		pids, _ := cg.Members()
		for _, pid := range pids {
			argv, _ := proc.Cmdline(pid)
			if len(argv) > 1 && argv[1] == builtin.ChildCommand && slices.Contains(argv, label) && !slices.Contains(argv, "--daemonize") {
				daemons = append(daemons, pid)
			}
		}
		return len(daemons) >= 3
	}) {
		t.Fatalf("daemons: got %v, want 3", daemons)
	}
	for _, pid := range daemons {
		p, err := proc.Stat(pid)
		if err != nil {
			t.Fatal(err)
		}
		if p.PPID == cmd.Process.Pid {
			t.Errorf("daemon %d: its parent is the backend", pid)
		}
		if sid, _ := unix.Getsid(pid); sid != pid {
			t.Errorf("daemon %d: session %d, want its own (setsid)", pid, sid)
		}
		if env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err != nil || len(env) != 0 {
			t.Errorf("daemon %d: environment %q (%v), want empty", pid, env, err)
		}
	}
}
