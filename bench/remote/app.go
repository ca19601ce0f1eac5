//go:build linux

package main

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
	"sync"
	"syscall"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/proc"
)

// app is one `hermes-desktop run --headless` on a state dir of its own,
// under a tag of its own.
type app struct {
	bin, state, tag string
	env             []string
	cmd             *exec.Cmd
	started         time.Time
	ready           chan time.Time // one per "backend X ready" line
	stderr          *testbin.Buffer
	exited          chan struct{}
	stopped         bool // stop ran
	handedOff       bool // an update handoff ran: a successor may run on state
}

// apps holds every app started, for the cleanup on any exit.
var (
	appsMu  sync.Mutex
	apps    []*app
	closing bool // the cleanup began: start no more
)

// startApp saves backends and the disconnect grace into a fresh state dir
// under root and starts the app; its clock starts just before exec.
func (e *bench) startApp(backends []settings.Backend, grace string) (*app, error) {
	return e.startAppWith(settings.Settings{Backends: backends, SSHConfig: e.srv.ClientConfig, DisconnectGrace: grace})
}

// startAppWith is startApp with the settings s.
func (e *bench) startAppWith(s settings.Settings) (*app, error) {
	return e.launch(e.bin, e.cores, s)
}

// launch starts the app bin with the remote cores of the directory cores
// (remotecore.CoresEnv) and the settings s, and the counting ssh wrapper
// first on its PATH (sshwrap.go).
func (e *bench) launch(bin, cores string, s settings.Settings) (*app, error) {
	state, err := os.MkdirTemp(e.root, "s")
	if err != nil {
		return nil, err
	}
	if err := settings.Save(state, s); err != nil {
		return nil, fmt.Errorf("save settings: %w", err)
	}
	a := &app{bin: bin, state: state, tag: testbin.NewTag(), ready: make(chan time.Time, 16), stderr: &testbin.Buffer{}, exited: make(chan struct{})}
	a.env = append(withPath(testbin.NewEnv(a.tag, filepath.Join(state, "hermes-home")), e.wrapDir), remotecore.CoresEnv+"="+cores)
	// --min-orphan-age: never reap another run's leftovers as an orphan;
	// each run is judged by what it leaves itself.
	a.cmd = exec.Command(bin, "run", "--headless", "--state-dir", state, "--no-boot-reap", "--min-orphan-age", "1h")
	a.cmd.Env = a.env
	a.cmd.Stderr = a.stderr
	out, err := a.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	appsMu.Lock()
	defer appsMu.Unlock()
	if closing {
		return nil, fmt.Errorf("cleaning up")
	}
	a.started = time.Now()
	if err := a.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the app: %w", err)
	}
	apps = append(apps, a)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), " ready pid=") {
				select {
				case a.ready <- time.Now():
				default:
				}
			}
		}
		_ = a.cmd.Wait()
		close(a.exited)
	}()
	return a, nil
}

// waitReady returns how long after its start the app announced its k-th
// ready backend.
func (a *app) waitReady(k int, d time.Duration) (time.Duration, error) {
	timeout := time.After(d)
	var last time.Time
	for i := 0; i < k; i++ {
		select {
		case last = <-a.ready:
		case <-a.exited:
			return 0, fmt.Errorf("the app exited before %d backends were ready:\n%s", k, a.stderr.String())
		case <-timeout:
			return 0, fmt.Errorf("%d backends not ready after %v:\n%s", k, d, a.stderr.String())
		}
	}
	return last.Sub(a.started), nil
}

// status is `hermes-desktop status --json`.
func (a *app) status() (model.Status, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.bin, "status", "--json", "--state-dir", a.state)
	cmd.Env = a.env
	out, err := cmd.Output()
	var st model.Status
	if err != nil {
		return st, fmt.Errorf("status --json: %w", err)
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return st, fmt.Errorf("status --json: %w: %q", err, out)
	}
	return st, nil
}

// backend returns the named backend's status.
func (a *app) backend(name string) (model.BackendStatus, error) {
	st, err := a.status()
	if err != nil {
		return model.BackendStatus{}, err
	}
	for _, b := range st.Backends {
		if b.Name == name {
			return b, nil
		}
	}
	return model.BackendStatus{}, fmt.Errorf("no backend %s in the status", name)
}

// master returns the PID of the app's one ssh session to the host: a
// descendant `ssh ... -o ControlPath=none ...` (backend/ssh).
func (a *app) master() (int, error) {
	kids, err := proc.DescendantsOf(a.cmd.Process.Pid)
	if err != nil {
		return 0, err
	}
	for _, k := range kids {
		argv := cmdline(k.PID)
		if len(argv) > 0 && filepath.Base(argv[0]) == "ssh" && slices.Contains(argv, "ControlPath=none") {
			return k.PID, nil
		}
	}
	return 0, fmt.Errorf("no ssh session under the app (pid %d)", a.cmd.Process.Pid)
}

// stop stops the app (`stop`, then SIGKILL if it does not go) and returns
// the tagged processes still there a moment later, then kills those.
func (a *app) stop() []int {
	if a.stopped {
		return nil
	}
	a.stopped = true
	select {
	case <-a.exited:
		if a.handedOff { // the successor runs on the state dir
			a.stopCLI()
		}
	default:
		a.stopCLI()
		select {
		case <-a.exited:
		case <-time.After(10 * time.Second):
			_ = a.cmd.Process.Kill()
			<-a.exited
		}
	}
	left := testbin.WaitUntagged(a.tag, 3*time.Second)
	testbin.SweepTagged(a.tag)
	return left
}

// stopCLI runs `stop` on the app's state dir.
func (a *app) stopCLI() {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.bin, "stop", "--timeout", "30s", "--state-dir", a.state)
	cmd.Env = a.env
	_ = cmd.Run()
}

// answers reports whether url gives any HTTP answer.
func answers(url string) bool {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

// sendSignal sends sig to pid after checking it is still the process seen
// (proc.Lookup then an identity-checked signal).
func sendSignal(pid int, sig syscall.Signal) error {
	id, err := proc.Lookup(pid)
	if err != nil {
		return err
	}
	return proc.Signal(id, sig)
}

func cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// parentOf is pid's parent from /proc/PID/stat (0 if gone).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // comm may hold spaces
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
