package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// withFakeHermes puts a fake hermes (internal/testbin.FakeHermes) first on
// PATH and gives Hermes' host records a directory of the test's own. It
// returns that directory.
func withFakeHermes(t *testing.T) (lockDir string) {
	t.Helper()
	t.Setenv("PATH", testbin.FakeHermes(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state) // the fake's fallback: HERMES_* is not passed to launchers
	return filepath.Join(state, "hermes", "gateway-locks")
}

func get(t *testing.T, url string, header ...string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

// With hermes on PATH and nothing configured, the one backend is a Hermes
// dashboard, started without the desktop's marks, ready behind the gate,
// and `open --print` gives its page (with the page's token), not the
// headless 404.
func TestDefaultIsHermesDashboardAndOpenGivesItsPage(t *testing.T) {
	withFakeHermes(t)
	l := testbin.StartLauncher(t)
	r := l.WaitReady(1, readyWait)
	if !strings.Contains(l.Stdout.String(), "hermes found on PATH") {
		t.Errorf("run did not choose hermes:\n%s", l.Stdout.String())
	}
	b := status(t, l).Backends[0]
	if b.Kind != settings.KindDashboard || !slices.Contains(b.Command, "dashboard") || !slices.Contains(b.Command, "--no-open") {
		t.Errorf("backend: got kind %s command %q, want hermes dashboard --no-open", b.Kind, b.Command)
	}
	for _, k := range []string{"HERMES_DESKTOP", "HERMES_DASHBOARD_SESSION_TOKEN"} {
		if _, ok, _ := proc.Getenv(r.PID, k); ok {
			t.Errorf("the dashboard has %s: a desktop-owned backend is hidden from Hermes and never serves its own page", k)
		}
	}
	out, errOut, code := l.CLI("open", "--print")
	page := strings.TrimSpace(out)
	if code != 0 || page != r.URL+"/" {
		t.Fatalf("open --print: got %q (exit %d, %s), want %s/", out, code, errOut, r.URL)
	}
	status, ctype, body := get(t, page)
	if status != 200 || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, "__HERMES_SESSION_TOKEN__") {
		t.Errorf("the page: got %d %q %.80q, want 200 text/html with the page's token", status, ctype, body)
	}
	stopAndCheck(t, l)
}

// Readiness behind Hermes' auth gate, for desktop-owned backends: with
// /api/health gated the launcher's token gets it through; public, too.
func TestReadyBehindTheGate(t *testing.T) {
	for _, flags := range []string{"", " --public-health"} {
		t.Run("health"+strings.ReplaceAll(flags, " ", ""), func(t *testing.T) {
			l := testbin.StartLauncher(t, "--backend-cmd", "{bin} serve --host 127.0.0.1 --port 0"+flags)
			r := l.WaitReady(1, readyWait)
			want := 401
			if flags != "" {
				want = 200
			}
			if got, _, _ := get(t, r.URL+"/api/health"); got != want {
				t.Errorf("/api/health without the token: got %d, want %d", got, want)
			}
			if st, _, body := get(t, r.URL+"/"); st != 404 || !strings.Contains(body, "Headless backend") {
				t.Errorf("a serve backend's page: got %d %q, want the headless 404", st, body)
			}
			if _, _, code := l.CLI("open", "--print"); code != 0 {
				t.Errorf("open --print of a custom backend: exit %d, want its root page", code)
			}
			stopAndCheck(t, l)
		})
	}
	t.Run("serve kind is API only", func(t *testing.T) {
		withFakeHermes(t)
		dir := t.TempDir()
		state := filepath.Join(dir, "state")
		must(t, os.Mkdir(state, 0o700))
		must(t, settings.Save(state, settings.Settings{Backends: []settings.Backend{{Name: "api", Kind: settings.KindServe}}}))
		l := testbin.Base(t, state, filepath.Join(dir, "home"), testbin.Tag(t)).StartAnother()
		l.WaitReady(1, readyWait)
		b := status(t, l).Backends[0]
		if b.Kind != settings.KindServe || b.PageURL != "" || b.URL == "" {
			t.Errorf("serve backend: got kind %s page %q url %q, want API only", b.Kind, b.PageURL, b.URL)
		}
		if _, errOut, code := l.CLI("open", "--print"); code != 3 {
			t.Errorf("open --print with only an API backend: got exit %d (%s), want 3", code, errOut)
		}
		stopAndCheck(t, l)
	})
}

// A user already runs a Hermes host backend: `hermes dashboard` starts no
// second server and says where it is. That is a backend found: attached,
// no second server, no restarts, and still alive after we stop.
func TestAttachesToARunningHermes(t *testing.T) {
	lockDir := withFakeHermes(t)
	port := testbin.StartHostDashboard(t, lockDir)
	l := testbin.StartLauncher(t)
	if _, err := l.Stdout.WaitMatchN(regexp.MustCompile(`hermes-desktop running`), 1, readyWait); err != nil {
		t.Fatal(err)
	}
	var b model.BackendStatus
	if !waitfor.Try(readyWait, func() bool { b = status(t, l).Backends[0]; return b.State == model.StateExternal }) {
		t.Fatalf("backend: got %+v, want external", b)
	}
	if b.Port != port || !strings.Contains(b.PageURL, ":"+strconv.Itoa(port)) || b.PID != 0 || b.Restarts != 0 {
		t.Errorf("attached backend: got %+v, want port %d, its page, no PID, no restarts", b, port)
	}
	time.Sleep(3 * time.Second) // health checks run; nothing may restart or spawn
	b = status(t, l).Backends[0]
	if b.State != model.StateExternal || b.Restarts != 0 {
		t.Errorf("after a while: got %s with %d restarts, want external, 0", b.State, b.Restarts)
	}
	if roles := countRoles(l.Tag); len(roles.backends) != 0 || len(roles.shims) != 0 {
		t.Errorf("a second server runs: %+v", roles)
	}
	if out, _, code := l.CLI("open", "--print"); code != 0 || !strings.Contains(out, ":"+strconv.Itoa(port)) {
		t.Errorf("open --print: got %q exit %d, want the attached page", out, code)
	}
	stopAndCheck(t, l)
	if st, _, _ := get(t, "http://127.0.0.1:"+strconv.Itoa(port)+"/api/status"); st != 200 {
		t.Errorf("the host backend after our stop: got %d, want it alive", st)
	}
}

// Hermes starts its stdio MCP servers about a second after binding, with
// an environment that drops our nonce. A crash of the launcher and its
// shim together 2.5 s after ready must not strand them: the tree is
// sampled every second after ready and written to the record, so the next
// boot's reap finds them.
func TestEarlyChildrenSurviveNoCrash(t *testing.T) {
	l1 := testbin.StartLauncher(t, "--grace", "1s", "--backend-cmd",
		"{bin} serve --host 127.0.0.1 --port 0 --children-after 1s --spawn-setsid-children 2 --scrub-child-env --keep-child-env "+testbin.TagEnv)
	l1.WaitReady(1, readyWait)
	time.Sleep(2500 * time.Millisecond)
	kids := testbin.WaitTagged(t, l1.Tag, 5, tagWait) // launcher, shim, backend, 2 children
	shim := status(t, l1).Backends[0].ShimPID
	killLauncherAndShim(t, l1, shim)
	if _, err := l1.WaitExit(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	var stranded []int
	waitfor.Try(10*time.Second, func() bool { stranded = testbin.Tagged(l1.Tag); return len(stranded) <= 2 })
	if len(stranded) != 2 {
		t.Fatalf("stranded: got %v, want the 2 scrubbed children of %v", stranded, kids)
	}
	l2 := l1.StartAnother()
	l2.WaitReady(1, readyWait)
	for _, d := range status(t, l2).BootReap.Decisions {
		if slices.Contains(stranded, d.PID) && (d.Action != reap.ActionReaped || d.Reason != reap.ReasonOwnerDead) {
			t.Errorf("pid %d: got %s/%s, want reaped/owner-dead", d.PID, d.Action, d.Reason)
		}
	}
	for _, pid := range stranded {
		if slices.Contains(testbin.Tagged(l2.Tag), pid) {
			t.Errorf("pid %d survived the boot reap", pid)
		}
	}
	stopAndCheck(t, l2)
}

// `hermes update` replaces hermes and kills the backends it ran: that is
// no crash. The backend is restarted at once, outside the crash-loop
// breaker, and the user is told why.
func TestHermesUpdateRestartsWithoutCounting(t *testing.T) {
	withFakeHermes(t)
	l := testbin.StartLauncher(t)
	r := l.WaitReady(1, readyWait)
	hermes := filepath.Join(strings.SplitN(os.Getenv("PATH"), string(os.PathListSeparator), 2)[0], "hermes")
	for i := 0; i < 4; i++ { // more than the breaker's 3 within 120 s
		script, err := os.ReadFile(hermes)
		must(t, err)
		must(t, os.Remove(hermes)) // a new file, as an installer writes it
		must(t, os.WriteFile(hermes, append(script, []byte("\n# updated "+strconv.Itoa(i)+"\n")...), 0o755))
		id, err := proc.Lookup(r.PID)
		must(t, err)
		must(t, proc.Signal(id, syscall.SIGTERM)) // what hermes update does to it
		r = l.WaitReady(i+2, readyWait)
	}
	b := status(t, l).Backends[0]
	if b.State != model.StateReady || !strings.Contains(b.LastRestart, "Hermes was updated") {
		t.Errorf("after 4 updates: got %s, last restart %q, want ready and 'Hermes was updated'", b.State, b.LastRestart)
	}
	stopAndCheck(t, l)
}
