package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/app/cli"
	"hermes-desktop/backend/model"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// roles counts the live processes of a test by what they are.
type roles struct{ launchers, shims, backends []int }

// pfForkNoExec is PF_FORKNOEXEC in /proc/PID/stat's flags: forked, not yet
// exec'd. Such a child still shows its parent's command line (a backend
// running `sh -c ...` looks like a second backend for a moment).
const pfForkNoExec = 0x40

func forkedNotExeced(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	var flags uint64
	_, _ = fmt.Sscan(f[6], &flags)
	return flags&pfForkNoExec != 0
}

func countRoles(tag string) roles {
	var r roles
	for _, pid := range testbin.Tagged(tag) {
		argv, err := proc.Cmdline(pid)
		if err != nil || len(argv) < 2 || forkedNotExeced(pid) {
			continue
		}
		switch argv[1] {
		case "run":
			r.launchers = append(r.launchers, pid)
		case "watchdog":
			r.shims = append(r.shims, pid)
		case "serve", "dashboard":
			r.backends = append(r.backends, pid)
		}
	}
	return r
}

// watcher samples the process table and the backend's health until stopped,
// and records the worst it saw.
type watcher struct {
	maxBackends  atomic.Int32
	firstDup     atomic.Pointer[string] // what the first sample with two backends saw
	healthFails  atomic.Int32
	healthChecks atomic.Int32
	samples      atomic.Int32
	stop         chan struct{}
	done         sync.WaitGroup
	healthURL    string // set before the goroutines start
}

// watch starts sampling; healthURL "" means no health probes.
func watch(tag, healthURL string) *watcher {
	w := &watcher{stop: make(chan struct{}), healthURL: healthURL}
	w.done.Add(2)
	go func() {
		defer w.done.Done()
		for {
			select {
			case <-w.stop:
				return
			default:
			}
			r := countRoles(tag)
			n := int32(len(r.backends))
			if n > 1 && w.firstDup.Load() == nil {
				var desc []string
				for _, pid := range r.backends {
					st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
					desc = append(desc, string(st))
				}
				s := strings.Join(desc, "\n")
				w.firstDup.Store(&s)
			}
			for {
				cur := w.maxBackends.Load()
				if n <= cur || w.maxBackends.CompareAndSwap(cur, n) {
					break
				}
			}
			w.samples.Add(1)
			time.Sleep(3 * time.Millisecond)
		}
	}()
	go func() {
		defer w.done.Done()
		client := &http.Client{Timeout: time.Second}
		for {
			select {
			case <-w.stop:
				return
			default:
			}
			if url := w.healthURL; url != "" {
				w.healthChecks.Add(1)
				resp, err := client.Get(url)
				if err != nil || resp.StatusCode != 200 {
					w.healthFails.Add(1)
				}
				if resp != nil {
					resp.Body.Close()
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return w
}

func (w *watcher) finish() { close(w.stop); w.done.Wait() }

// copyBinary makes a second copy of the binary: "the new version".
func copyBinary(t *testing.T, src string) string {
	data, err := os.ReadFile(src)
	must(t, err)
	dst := filepath.Join(t.TempDir(), "hermes-desktop")
	must(t, os.WriteFile(dst, data, 0o755))
	return dst
}

func statusOf(t *testing.T, l *testbin.Launcher) (model.Status, bool) {
	out, _, code := l.CLI("status", "--json")
	if code != 0 {
		return model.Status{}, false
	}
	var st model.Status
	must(t, json.Unmarshal([]byte(out), &st))
	return st, true
}

// stopSuccessor stops whatever instance runs on the state dir at the end
// and checks nothing is left.
func stopSuccessor(t *testing.T, l *testbin.Launcher) {
	t.Helper()
	if _, errOut, code := l.CLI("stop", "--timeout", "30s"); code != 0 && code != cli.ExitNotRunning {
		t.Errorf("stop: exit %d: %s", code, errOut)
	}
	if left := testbin.WaitUntagged(l.Tag, 10*time.Second); len(left) > 0 {
		t.Errorf("left at the end: %v", left)
	}
}

func TestHandoffsInARow(t *testing.T) {
	for _, mode := range []string{"adopt", "restart"} {
		t.Run(mode, func(t *testing.T) {
			l := testbin.StartLauncher(t, "--grace", "2s")
			first := l.WaitReady(1, readyWait)
			bins := []string{l.Bin, copyBinary(t, l.Bin)}
			health := ""
			if mode == "adopt" {
				health = first.URL + "/api/status" // public: the test holds no token
			}
			w := watch(l.Tag, health)
			prevPID := l.Cmd.Process.Pid
			for i := 1; i <= 20; i++ {
				out, errOut, code := l.CLI("handoff", "--to", bins[i%2], "--mode", mode, "--timeout", "30s")
				if code != 0 {
					t.Fatalf("handoff %d: exit %d: %s%s", i, code, out, errOut)
				}
				st, ok := statusOf(t, l)
				if !ok || st.Instance.PID == prevPID {
					t.Fatalf("handoff %d: the new instance does not answer (prev %d): %+v", i, prevPID, st.Instance)
				}
				prevPID = st.Instance.PID
				// Exactly one instance and one tree once it is done.
				var r roles
				if !waitfor.Try(10*time.Second, func() bool {
					r = countRoles(l.Tag)
					ready := len(st.Backends) == 1 && st.Backends[0].State == model.StateReady
					if len(r.launchers) == 1 && len(r.shims) == 1 && len(r.backends) == 1 && ready {
						return true
					}
					st, _ = statusOf(t, l)
					return false
				}) {
					t.Fatalf("handoff %d: not one instance and one tree: %+v, backend %+v", i, r, st.Backends)
				}
				b := st.Backends[0]
				if mode == "adopt" && (b.PID != first.PID || b.Port != first.Port) {
					t.Fatalf("handoff %d: adopt changed the backend: pid %d port %d, want %d %d", i, b.PID, b.Port, first.PID, first.Port)
				}
			}
			w.finish()
			if n := w.maxBackends.Load(); n > 1 {
				t.Errorf("at some sample %d backends were alive at once:\n%s", n, *w.firstDup.Load())
			}
			if w.samples.Load() < 100 {
				t.Errorf("only %d samples of the process table", w.samples.Load())
			}
			if mode == "adopt" {
				if f, n := w.healthFails.Load(), w.healthChecks.Load(); f > 0 || n < 100 {
					t.Errorf("health during adopt handoffs: %d failures in %d checks, want none", f, n)
				}
			}
			stopSuccessor(t, l)
		})
	}
}

// writeScript writes an executable shell script standing in for a broken
// update.
func writeScript(t *testing.T, body string) string {
	path := filepath.Join(t.TempDir(), "hermes-desktop")
	must(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
	return path
}

func TestHandoffToBrokenBinaryKeepsTheOldInstance(t *testing.T) {
	cases := []struct {
		name, mode, script string
		samePID            bool // the backend was not touched
	}{
		{"exits at once, adopt", "adopt", "exit 1", true},
		{"exits at once, restart", "restart", "exit 1", true},
		{"fails its start, adopt", "adopt", `[ "$1" = version ] && exec {bin} version; exit 3`, true},
		{"fails its start, restart", "restart", `[ "$1" = version ] && exec {bin} version; exit 3`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := testbin.StartLauncher(t, "--grace", "1s")
			r := l.WaitReady(1, readyWait)
			broken := writeScript(t, strings.ReplaceAll(tc.script, "{bin}", l.Bin))
			_, errOut, code := l.CLI("handoff", "--to", broken, "--mode", tc.mode, "--timeout", "20s")
			if code == 0 || !strings.Contains(errOut, "handoff failed") {
				t.Fatalf("handoff to a broken binary: exit %d, %q; want a clear failure", code, errOut)
			}
			st, ok := statusOf(t, l)
			if !ok || st.Instance.PID != l.Cmd.Process.Pid {
				t.Fatalf("the old instance is not in charge any more: %+v", st.Instance)
			}
			// The launcher log says why, not only the one who asked: a
			// window's Restart has nobody reading its stderr.
			logText, err := os.ReadFile(filepath.Join(l.StateDir, "launcher.log"))
			if err != nil || !regexp.MustCompile(`level=ERROR msg="handoff failed" .*mode=`+tc.mode+` new_instance_in_charge=false err=`).Match(logText) {
				t.Errorf("launcher.log does not say why the handoff failed (%v):\n%s", err, logText)
			}
			if tc.samePID {
				if b := st.Backends[0]; b.PID != r.PID || b.State != model.StateReady {
					t.Errorf("the backend was touched: %+v, want pid %d ready", b, r.PID)
				}
			} else if _, err := l.Stdout.WaitMatchN(regexp.MustCompile(`backend \S+ ready pid=`), 2, readyWait); err != nil {
				t.Errorf("the old instance did not restart its backend after the failed restart handoff: %v", err)
			}
			if r := countRoles(l.Tag); len(r.launchers) != 1 || len(r.backends) != 1 {
				t.Errorf("after the failed handoff: %+v", r)
			}
			stopAndCheck(t, l)
		})
	}
}

// SIGKILL of the old instance at a random point of a handoff: after the
// next boot nothing is orphaned and nothing is duplicated.
func TestHandoffSurvivesOldBeingKilled(t *testing.T) {
	for run := 0; run < 10; run++ {
		mode := []string{"adopt", "restart"}[run%2]
		t.Run(fmt.Sprintf("%d-%s", run, mode), func(t *testing.T) {
			l := testbin.StartLauncher(t, "--grace", "1s", "--min-orphan-age", "1h")
			l.WaitReady(1, readyWait)
			next := copyBinary(t, l.Bin)
			done := make(chan struct{})
			go func() {
				defer close(done)
				l.CLI("handoff", "--to", next, "--mode", mode, "--timeout", "20s")
			}()
			time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
			_ = l.Signal(syscall.SIGKILL)
			<-done
			if _, err := l.WaitExit(10 * time.Second); err != nil {
				t.Fatal(err)
			}
			// The next boot: a new launcher, unless the successor already runs.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var st model.Status
			for ctx.Err() == nil {
				if s, ok := statusOf(t, l); ok && len(s.Backends) == 1 && s.Backends[0].State == model.StateReady {
					st = s
					break
				}
				if len(countRoles(l.Tag).launchers) == 0 {
					boot := l.StartAnother()
					boot.WaitReady(1, readyWait)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if ctx.Err() != nil {
				t.Fatalf("no instance with a ready backend after the next boot: %+v", countRoles(l.Tag))
			}
			// Settle: a dying predecessor's tree may take the grace period.
			var r roles
			if !waitfor.Try(10*time.Second, func() bool {
				r = countRoles(l.Tag)
				return len(r.launchers) == 1 && len(r.shims) == 1 && len(r.backends) == 1
			}) {
				t.Fatalf("orphans or duplicates after the next boot: %+v (instance %d)", r, st.Instance.PID)
			}
			stopSuccessor(t, l)
		})
	}
}

// A package upgrade replaces the executable under the running app: the app
// notices (status: restart_to_apply) and `handoff` with no --to applies it
// as an adopt handoff, the backend keeping its PID.
func TestHandoffAppliesThePackagesUpgrade(t *testing.T) {
	dir := t.TempDir()
	exe := copyBinary(t, testbin.Path(t))
	base := testbin.Base(t, filepath.Join(dir, "state"), filepath.Join(dir, "home"), testbin.Tag(t))
	base.Bin = exe
	l := base.StartAnother("--grace", "2s")
	first := l.WaitReady(1, readyWait)
	if st, ok := statusOf(t, l); !ok || st.Instance.UpdateInstalled {
		t.Fatalf("before the upgrade: got %+v, want no restart to apply", st.Instance)
	}
	if _, errOut, code := l.CLI("handoff", "--timeout", "30s"); code == 0 || !strings.Contains(errOut, "has not changed") {
		t.Errorf("handoff with nothing to apply: got exit %d %q, want a refusal", code, errOut)
	}
	// What dpkg does: the new file is written beside the old and renamed
	// over it.
	data, err := os.ReadFile(exe)
	must(t, err)
	must(t, os.WriteFile(exe+".dpkg-new", data, 0o755))
	must(t, os.Rename(exe+".dpkg-new", exe))
	waitfor.Until(t, 10*time.Second, "the replaced executable to be noticed", func() bool {
		st, ok := statusOf(t, l)
		return ok && st.Instance.UpdateInstalled
	})
	out, errOut, code := l.CLI("handoff", "--timeout", "30s")
	if code != 0 || !strings.Contains(out, "adopt") {
		t.Fatalf("handoff to apply: exit %d: %s%s", code, out, errOut)
	}
	var st model.Status
	waitfor.Try(10*time.Second, func() bool {
		now, ok := statusOf(t, l)
		if ok && len(now.Backends) == 1 && now.Backends[0].State == model.StateReady {
			st = now
			return true
		}
		return false
	})
	if len(st.Backends) != 1 || st.Instance.PID == l.Cmd.Process.Pid || st.Backends[0].PID != first.PID || st.Instance.UpdateInstalled {
		t.Errorf("after applying: got %+v / backend %d, want a new instance, the same backend %d, nothing left to apply",
			st.Instance, st.Backends[0].PID, first.PID)
	}
	stopSuccessor(t, l)
}
