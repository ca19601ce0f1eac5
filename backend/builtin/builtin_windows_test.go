package builtin_test

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/builtin"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/proc"
)

// The built-in backend on Windows: the contract the launcher relies on
// (READY line, ready file, the token gate), its fault children, and the
// parent watch that Hermes' contract asks of every backend. Processes are
// counted in the process table (testbin.Tree): Windows environments
// cannot be read, so the tag the Linux tests use does not apply.

// helperEnv makes the test binary, re-run as a child, sleep (TestMain): a
// parent for the backend that only a kill ends early.
const helperEnv = "HERMES_BUILTIN_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "sleep" {
		time.Sleep(2 * time.Minute) // outlives any test; a leftover goes on its own
		os.Exit(0)
	}
	os.Exit(testbin.Main(m))
}

const testToken = "test-session-token-0123456789abcdef"

// served is a built-in backend a test started, and the only waiter of it.
type served struct {
	cmd  *exec.Cmd
	port int
	done chan struct{}
	tree *testbin.Tree
}

// startServe runs `hermes-desktop serve` with env and args and waits for
// its READY line. Cleanup kills it and the children it started, which
// outlive it on Windows as they do in Hermes, and fails the test if one
// cannot be killed.
func startServe(t *testing.T, env []string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(testbin.Path(t), append([]string{"serve", "--host", "127.0.0.1", "--port", "0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, done: make(chan struct{})}
	first := make(chan string, 1)
	go func() { // the only reader of stdout and waiter of cmd
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			first <- sc.Text()
		}
		close(first)
		for sc.Scan() { // drain what follows
		}
		_ = cmd.Wait() // after the reads, as exec asks
		close(s.done)
	}()
	id, err := proc.Lookup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-s.done })
	s.tree = testbin.FollowTree(t, id)
	t.Cleanup(s.killTree) // before the tree's check, which then finds nothing
	select {
	case line := <-first:
		if _, err := fmt.Sscanf(strings.TrimSpace(line), hermes.ServeReadyPrefix+"%d", &s.port); err != nil {
			t.Fatalf("first line: got %q, want %s<port>", line, hermes.ServeReadyPrefix)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no READY line")
	}
	return s
}

// killTree ends the backend and the children it started, which outlive it
// on Windows as they do in Hermes: nothing but a launcher's job or shim
// ends them.
func (s *served) killTree() {
	for _, id := range s.tree.Running() {
		_ = proc.Signal(id, syscall.SIGKILL) // TerminateProcess, through a checked handle
	}
}

func (s *served) get(t *testing.T, path, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", s.port, path), nil)
	if token != "" {
		req.Header.Set(hermes.SessionTokenHeader, token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestServeContractWindows(t *testing.T) {
	readyFile := filepath.Join(t.TempDir(), "ready.json")
	s := startServe(t, []string{hermes.EnvReadyFile + "=" + readyFile, hermes.EnvSessionToken + "=" + testToken})
	data, err := os.ReadFile(readyFile)
	if want := fmt.Sprintf(`{"port":%d}`, s.port); err != nil || strings.TrimSpace(string(data)) != want {
		t.Errorf("ready file: got %q (%v), want %s", data, err, want)
	}
	for _, c := range []struct {
		path, token string
		want        int
	}{
		{"/api/status", "", http.StatusOK},
		{"/api/health", "", http.StatusUnauthorized},
		{"/api/health", testToken, http.StatusOK},
	} {
		if got := s.get(t, c.path, c.token); got != c.want {
			t.Errorf("GET %s (token %v): got HTTP %d, want %d", c.path, c.token != "", got, c.want)
		}
	}
}

// The fault children run on Windows too: one in the backend's console
// group, one in a group of its own (the nearest Windows has to setsid).
func TestServeChildrenWindows(t *testing.T) {
	s := startServe(t, nil, "--spawn-children=1", "--spawn-setsid-children=1")
	ids := s.tree.WaitRunning(3, 10*time.Second)
	for _, id := range ids[1:] {
		argv, err := proc.Cmdline(id.PID)
		if err != nil || !strings.Contains(strings.Join(argv, " "), builtin.ChildCommand) {
			t.Errorf("child %s: got command line %q (%v), want %s", id, argv, err, builtin.ChildCommand)
		}
	}
}

// The backend follows HERMES_PARENT_PID through a process handle: when
// that process dies, it exits at once, without polling.
func TestServeExitsWhenParentDiesWindows(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), helperEnv+"=sleep")
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	parentDone := make(chan struct{})
	go func() { _ = parent.Wait(); close(parentDone) }()
	t.Cleanup(func() { _ = parent.Process.Kill(); <-parentDone })
	pid, err := proc.Lookup(parent.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	s := startServe(t, []string{
		fmt.Sprintf("HERMES_PARENT_PID=%d", pid.PID),
		"HERMES_PARENT_START_MARKER=" + proc.HermesMarker(pid),
		"HERMES_PARENT_NONCE=00112233445566778899aabbccddeeff",
	})
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	select {
	case <-s.done:
		t.Logf("backend exited %v after its parent was killed", time.Since(start))
	case <-time.After(5 * time.Second):
		t.Fatal("serve still running 5s after its parent died")
	}
	if got, want := s.cmd.ProcessState.ExitCode(), 1; got != want {
		t.Errorf("exit code: got %d, want %d (parent gone)", got, want)
	}
}
