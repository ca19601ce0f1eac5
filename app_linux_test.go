package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend"
	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/contract/logs"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/cmdline"
	"hermes-desktop/platform/proc"
)

// fakeUI records what the App asks of the window.
type fakeUI struct {
	mu     sync.Mutex // guards everything below
	events map[string][]any
	shown  int
	hidden int
	quit   int
}

func (f *fakeUI) Emit(topic string, data any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.events == nil {
		f.events = map[string][]any{}
	}
	f.events[topic] = append(f.events[topic], data)
}
func (f *fakeUI) Show() { f.mu.Lock(); f.shown++; f.mu.Unlock() }
func (f *fakeUI) Hide() { f.mu.Lock(); f.hidden++; f.mu.Unlock() }
func (f *fakeUI) Quit() { f.mu.Lock(); f.quit++; f.mu.Unlock() }

func (f *fakeUI) count(topic string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.events[topic])
}

func (f *fakeUI) find(topic string, match func(any) bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.events[topic] {
		if match(e) {
			return true
		}
	}
	return false
}

// startApp opens a real launcher with the built-in backend in-process and
// wraps it in an App with a fake window.
func startApp(t *testing.T) (*App, *fakeUI, *backend.Launcher) {
	t.Helper()
	return startAppWith(t, nil)
}

// startAppWith is startApp with explicit, if not nil, as the flags given
// to `run` (backend.Config.Explicit).
func startAppWith(t *testing.T, explicit func(*runspec.Spec)) (*App, *fakeUI, *backend.Launcher) {
	t.Helper()
	bin := testbin.Path(t)
	tag := testbin.Tag(t)
	t.Setenv(testbin.TagEnv, tag) // the backend tree inherits it; the cleanup checks it
	dir := t.TempDir()
	// What a successor (App.Relaunch) reads, as a launch from a shell
	// would give it.
	t.Setenv("HERMES_DESKTOP_STATE_DIR", filepath.Join(dir, "state"))
	t.Setenv("HERMES_HOME", filepath.Join(dir, "home"))
	t.Setenv("HERMES_DESKTOP_CONTAINMENT", string(model.ContainmentProcessTree))
	l, err := backend.Open(backend.Config{
		StateDir: filepath.Join(dir, "state"), HermesHome: filepath.Join(dir, "home"), Self: bin,
		Backends: []runspec.Spec{{Command: []string{bin, "serve", "--host", "127.0.0.1", "--port", "0"}}},
		UI:       "gui", NoBootReap: true, Explicit: explicit,
		// In-process: backends' cgroups would go under the test's own
		// cgroup, which no test owns; the e2e tests cover containment.
		Containment: model.ContainmentProcessTree,
	})
	if err != nil {
		t.Fatal(err)
	}
	app := newApp(l, bin)
	ui := &fakeUI{}
	app.win.attach(ui)
	l.Start()
	t.Cleanup(func() {
		app.win.detach()
		if err := l.Shutdown(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if left := testbin.WaitUntagged(tag, 5*time.Second); len(left) > 0 {
			t.Errorf("left after shutdown: %v", left)
		}
	})
	return app, ui, l
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitfor.Until(t, 20*time.Second, what, cond)
}

func TestAppPushesStatusAndLogsInBatches(t *testing.T) {
	_, ui, _ := startApp(t)
	waitFor(t, "a ready status event", func() bool {
		return ui.find("status", func(e any) bool {
			st := e.(model.Status)
			return len(st.Backends) == 1 && st.Backends[0].State == model.StateReady
		})
	})
	waitFor(t, "the READY line in a logs event", func() bool {
		return ui.find("logs", func(e any) bool {
			for _, line := range e.([]logs.Line) {
				if strings.HasPrefix(line.Text, "HERMES_BACKEND_READY") {
					return true
				}
			}
			return false
		})
	})
	// Batching: a quiet backend produces no stream of status events.
	n := ui.count("status")
	time.Sleep(4 * pumpInterval)
	if got := ui.count("status"); got != n {
		t.Errorf("status events while idle: %d more, want none", got-n)
	}
}

// A hidden window is sent nothing, however busy the backends are; shown
// again, it gets one fresh status. The tray's status line keeps up all the
// while.
func TestAppSendsNothingToAHiddenWindow(t *testing.T) {
	app, ui, l := startApp(t)
	var trayLines atomic.Int32
	app.win.setOnStatus(func(model.Status) { trayLines.Add(1) })
	waitFor(t, "a ready status event", func() bool {
		return ui.find("status", func(e any) bool {
			st := e.(model.Status)
			return len(st.Backends) == 1 && st.Backends[0].State == model.StateReady
		})
	})
	time.Sleep(2 * pumpInterval)
	if err := app.SetWindowVisible(false); err != nil {
		t.Fatal(err)
	}
	statusBefore, logsBefore, trayBefore := ui.count("status"), ui.count("logs"), trayLines.Load()
	if err := l.Restart(t.Context(), ""); err != nil { // status changes and log lines
		t.Fatal(err)
	}
	time.Sleep(4 * pumpInterval)
	if s, lg := ui.count("status"), ui.count("logs"); s != statusBefore || lg != logsBefore {
		t.Errorf("while hidden: %d status and %d logs events, want none", s-statusBefore, lg-logsBefore)
	}
	if trayLines.Load() == trayBefore {
		t.Error("the tray's status line was not kept up while the window was hidden")
	}
	if err := app.SetWindowVisible(true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "one fresh status once shown", func() bool { return ui.count("status") > statusBefore })
}

// What an event leaves for the next batch decides whether the pump arms
// its timer: a log line for a hidden window leaves nothing, so a backend
// that logs all day wakes nothing while the window is in the tray.
func TestAppTakeArmsABatchOnlyForWhatIsSent(t *testing.T) {
	line := &logs.Line{Seq: 1, Text: "hello"}
	cases := []struct {
		name    string
		visible bool
		ev      model.Event
		pending bool
		status  bool
		lines   int
		reaps   int
	}{
		{"status, shown", true, model.Event{Kind: model.EventStatus}, true, true, 0, 0},
		{"status, hidden: the tray still wants it", false, model.Event{Kind: model.EventStatus}, true, true, 0, 0},
		{"log line, shown", true, model.Event{Kind: model.EventLog, Log: line}, true, false, 1, 0},
		{"log line, hidden", false, model.Event{Kind: model.EventLog, Log: line}, false, false, 0, 0},
		{"reap, shown: sent at once", true, model.Event{Kind: model.EventReap}, true, true, 0, 1},
		{"reap, hidden", false, model.Event{Kind: model.EventReap}, true, true, 0, 0},
		{"unknown kind", true, model.Event{Kind: "other"}, false, false, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ui := &fakeUI{}
			a := &shell{}
			a.ui.Store(func() *windowUI { var w windowUI = ui; return &w }())
			a.visible.Store(c.visible)
			status, lines := false, []logs.Line(nil)
			if got := a.take(c.ev, &status, &lines); got != c.pending {
				t.Errorf("pending: got %v, want %v", got, c.pending)
			}
			if status != c.status || len(lines) != c.lines || ui.count("reap") != c.reaps {
				t.Errorf("got status %v, %d lines, %d reap events; want %v, %d, %d", status, len(lines), ui.count("reap"), c.status, c.lines, c.reaps)
			}
		})
	}
}

func TestAppCloseButton(t *testing.T) {
	app, ui, l := startApp(t)
	app.win.trayAvailable = func() bool { return true }
	if !app.win.beforeClose() || ui.hidden != 1 {
		t.Errorf("with a tray: close should hide (prevented=%v, hidden=%d)", true, ui.hidden)
	}
	app.win.trayAvailable = func() bool { return false }
	if app.win.beforeClose() {
		t.Errorf("without a tray: close must quit")
	}
	if !app.win.quitting.Load() {
		t.Errorf("closing without a tray did not mark the app as quitting")
	}
	// Once quitting, even with a tray, nothing prevents the close.
	app.win.trayAvailable = func() bool { return true }
	if app.win.beforeClose() {
		t.Errorf("a quitting app must not be kept open")
	}
	_ = l
}

// notifications records the desktop notifications the App shows; fail
// makes the next one fail, as when no notification server runs.
type notifications struct {
	mu    sync.Mutex // guards shown and fail
	shown []string
	fail  bool
}

func (n *notifications) notify(summary, body string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fail {
		n.fail = false
		return errors.New("no notification server")
	}
	n.shown = append(n.shown, summary)
	return nil
}

func (n *notifications) count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.shown)
}

// TestAppCloseToTrayHintsOnce: the first close to the tray says that the
// app still runs, once per install; a notification that could not be shown
// is tried again at the next close.
func TestAppCloseToTrayHintsOnce(t *testing.T) {
	app, ui, _ := startApp(t)
	app.win.trayAvailable = func() bool { return true }
	n := &notifications{fail: true}
	app.win.notify = n.notify
	mark := filepath.Join(app.stateDir, stillRunningHinted)
	closeAndSettle := func() {
		t.Helper()
		if !app.win.beforeClose() {
			t.Fatal("with a tray: close should hide")
		}
		app.SetWindowVisible(true)
		waitFor(t, "the hint to be tried", func() bool { return !app.win.hinting.Load() || n.count() > 0 })
	}
	closeAndSettle()
	if n.count() != 0 {
		t.Fatalf("a failed notification was counted")
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatalf("a failed notification was marked as shown")
	}
	closeAndSettle()
	waitFor(t, "the mark", func() bool { _, err := os.Stat(mark); return err == nil })
	closeAndSettle()
	if got := n.count(); got != 1 {
		t.Errorf("notifications after three closes (the first failed): got %d, want 1", got)
	}
	// The next run of the app on the same state dir says nothing more.
	next := newApp(app.l, app.self)
	next.win.trayAvailable = func() bool { return true }
	next.win.notify = n.notify
	next.win.attach(ui)
	defer next.win.detach()
	next.win.beforeClose()
	next.win.end()
	if got := n.count(); got != 1 {
		t.Errorf("notifications after a relaunch: got %d, want 1", got)
	}
}

func TestAppQuitAndFocus(t *testing.T) {
	app, ui, l := startApp(t)
	_ = app.Quit()
	if ui.quit != 1 || !app.win.quitting.Load() {
		t.Errorf("Quit: window quit %d times, quitting=%v", ui.quit, app.win.quitting.Load())
	}
	app.win.detach()
	_ = app.Quit() // no window any more: the launcher is asked to stop instead
	select {
	case <-l.StopRequested():
	case <-time.After(5 * time.Second):
		t.Fatal("Quit without a window did not request a stop")
	}
}

func TestAppOpenURLOnlyOpensLocalAddresses(t *testing.T) {
	app := &App{}
	for _, u := range []string{
		"https://example.com/", "http://10.0.0.1:8080/", "file:///etc/passwd", "javascript:alert(1)",
		"http://user:pw@127.0.0.1:80/", "http://127.0.0.1:99999/", "ftp://127.0.0.1/", "",
	} {
		if err := app.OpenURL(u); err == nil {
			t.Errorf("OpenURL(%q) was accepted", u)
		}
	}
}

func TestAppSettingsRoundTrip(t *testing.T) {
	app, _, _ := startApp(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	v, err := app.GetSettings()
	if err != nil || !reflect.DeepEqual(v.Settings, settings.Settings{}) || v.Defaults.HealthPath != "/api/health" {
		t.Fatalf("GetSettings: %+v, %v", v, err)
	}
	if _, err := app.SaveSettings(settings.Edit{Settings: settings.Settings{Grace: "soon"}, Fields: []string{"grace"}}); err == nil {
		t.Errorf("an invalid grace period was saved")
	}
	want := settings.Settings{BackendCommand: "hermes serve --host 127.0.0.1 --port 0", Grace: "3s", StartAtLogin: true}
	fields := []string{"backend_command", "grace", "start_at_login"}
	if _, err := app.SaveSettings(settings.Edit{Settings: want, Fields: fields}); err != nil {
		t.Fatal(err)
	}
	got, _ := app.GetSettings()
	if !reflect.DeepEqual(got.Settings, want) {
		t.Errorf("settings: got %+v, want %+v", got.Settings, want)
	}
	entry, err := os.ReadFile(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "autostart", "hermes-desktop.desktop"))
	if err != nil || !strings.Contains(string(entry), "Exec=\""+app.self+"\"") {
		t.Errorf("start at login: %v\n%s", err, entry)
	}
	want.StartAtLogin = false
	if _, err := app.SaveSettings(settings.Edit{Settings: want, Fields: []string{"start_at_login"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "autostart", "hermes-desktop.desktop")); !os.IsNotExist(err) {
		t.Errorf("start at login was not removed: %v", err)
	}
}

// TestAppSettingsSaveKeepsBackendList is issue 23's data loss, through the
// methods the window calls: the Settings page loads, a backend is added,
// a setting is saved from the page's copy; config.json (what a relaunch
// reads) still lists the backend. Then one is removed and another setting
// saved from a copy that still lists it: it does not come back.
func TestAppSettingsSaveKeepsBackendList(t *testing.T) {
	app, _, _ := startApp(t)
	opened, err := app.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	web := settings.Backend{Name: "web", Kind: settings.KindCustom, Command: app.self + " serve --host 127.0.0.1 --port 0", Enabled: new(bool)}
	if err := app.AddBackend(web); err != nil {
		t.Fatal(err)
	}
	edit := opened.Settings
	edit.Grace = "4s"
	if _, err := app.SaveSettings(settings.Edit{Settings: edit, Fields: []string{"grace"}}); err != nil {
		t.Fatal(err)
	}
	saved, notice := settings.Load(app.stateDir)
	if got := backendNames(saved.Backends); notice != "" || !slices.Equal(got, []string{backend.DefaultName, "web"}) || saved.Grace != "4s" {
		t.Fatalf("config.json after a save: backends %v, grace %q (%s); want [%s web], 4s", got, saved.Grace, notice, backend.DefaultName)
	}

	opened, _ = app.GetSettings() // lists web
	if err := app.RemoveBackend("web"); err != nil {
		t.Fatal(err)
	}
	edit = opened.Settings
	edit.MinOrphanAge = "5m"
	if _, err := app.SaveSettings(settings.Edit{Settings: edit, Fields: []string{"min_orphan_age"}}); err != nil {
		t.Fatal(err)
	}
	saved, _ = settings.Load(app.stateDir)
	if got := backendNames(saved.Backends); !slices.Equal(got, []string{backend.DefaultName}) || saved.MinOrphanAge != "5m" {
		t.Errorf("config.json after remove and save: backends %v, min orphan age %q; want [%s], 5m", got, saved.MinOrphanAge, backend.DefaultName)
	}
}

func backendNames(bs []settings.Backend) []string {
	out := []string{}
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

// The update feed and automatic updates saved on the Settings page apply
// to the running app at once: status (the sidebar, the page) shows the
// new feed without a restart.
func TestAppSavedUpdateSettingsApplyAtOnce(t *testing.T) {
	app, ui, l := startApp(t)
	const feed = "https://example.com/hermes-desktop/stable.json"
	if _, err := app.SaveSettings(settings.Edit{Settings: settings.Settings{UpdateFeed: feed, UpdateAutomatically: true}, Fields: []string{"update_feed", "update_automatically"}}); err != nil {
		t.Fatal(err)
	}
	if u := l.Status().Instance.Update; u.Feed != feed || !u.Automatic || u.FeedFrom != "" {
		t.Errorf("status: got feed %q (from %q), automatic %v; want %s from the settings, automatic", u.Feed, u.FeedFrom, u.Automatic, feed)
	}
	waitFor(t, "a status event with the new feed", func() bool {
		return ui.find("status", func(e any) bool { return e.(model.Status).Instance.Update.Feed == feed })
	})
}

// pythonServer is the command of a real custom server a person adds:
// python3's http.server, which prints "Serving HTTP on 127.0.0.1 port N"
// (not Hermes' ready line) and answers 404 at /api/health.
func pythonServer(t *testing.T, flags ...string) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH")
	}
	argv := append(append([]string{py}, flags...), "-m", "http.server", "0", "--bind", "127.0.0.1")
	return cmdline.Join(argv)
}

// waitReady waits for the named backend to be ready and returns its status.
func waitReady(t *testing.T, app *App, name string) model.BackendStatus {
	t.Helper()
	var st model.BackendStatus
	waitFor(t, name+" ready", func() bool {
		s, _ := app.Status()
		for _, b := range s.Backends {
			if b.Name == name {
				st = b
			}
		}
		return st.State == model.StateReady
	})
	return st
}

// shimArgs is the command line of a backend's shim.
func shimArgs(t *testing.T, st model.BackendStatus) []string {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", st.ShimPID))
	if err != nil || st.ShimPID == 0 {
		t.Fatalf("shim of %s (pid %d): %v", st.Name, st.ShimPID, err)
	}
	return strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
}

// TestAppAddBackendTakesSavedSharedSettings is issue 23, item 2: a custom
// backend added in the window takes the ready pattern, health path and
// grace saved on the Settings page now, not the ones the app started with
// (it stayed "Starting" forever, its shim got --grace=5s).
func TestAppAddBackendTakesSavedSharedSettings(t *testing.T) {
	app, _, _ := startApp(t)
	shared := settings.Settings{ReadyRegex: `port (\d+)`, HealthPath: "/", Grace: "3s"}
	if _, err := app.SaveSettings(settings.Edit{Settings: shared, Fields: []string{"ready_regex", "health_path", "grace"}}); err != nil {
		t.Fatal(err)
	}
	web := settings.Backend{Name: "web", Kind: settings.KindCustom, Command: pythonServer(t, "-u")}
	if err := app.AddBackend(web); err != nil {
		t.Fatal(err)
	}
	st := waitReady(t, app, "web")
	if args := shimArgs(t, st); !slices.Contains(args, "--grace=3s") {
		t.Errorf("shim: got %q, want --grace=3s (the saved grace)", args)
	}
	saved, _ := settings.Load(app.stateDir)
	if i := slices.IndexFunc(saved.Backends, func(b settings.Backend) bool { return b.Name == "web" }); i < 0 || !reflect.DeepEqual(saved.Backends[i], web) {
		t.Errorf("config.json backends: got %+v, want web as added, without the shared values", saved.Backends)
	}
}

// A custom backend's own ready pattern, health path and grace win over
// the shared settings, are saved with it, and a Python server is ready
// without -u (the launcher sets PYTHONUNBUFFERED for custom backends).
func TestAppAddBackendWithItsOwnReadiness(t *testing.T) {
	t.Setenv("PYTHONUNBUFFERED", "") // restored after the test
	os.Unsetenv("PYTHONUNBUFFERED")  // as in a person's session
	app, _, _ := startApp(t)
	if _, err := app.SaveSettings(settings.Edit{Settings: settings.Settings{Grace: "4s"}, Fields: []string{"grace"}}); err != nil {
		t.Fatal(err)
	}
	web := settings.Backend{Name: "web", Kind: settings.KindCustom, Command: pythonServer(t), ReadyRegex: `port (\d+)`, HealthPath: "/", Grace: "2s"}
	if err := app.AddBackend(web); err != nil {
		t.Fatal(err)
	}
	st := waitReady(t, app, "web")
	if args := shimArgs(t, st); !slices.Contains(args, "--grace=2s") {
		t.Errorf("shim: got %q, want --grace=2s (the backend's own)", args)
	}
	saved, _ := settings.Load(app.stateDir)
	if i := slices.IndexFunc(saved.Backends, func(b settings.Backend) bool { return b.Name == "web" }); i < 0 || !reflect.DeepEqual(saved.Backends[i], web) {
		t.Errorf("config.json backends: got %+v, want web with its own ready pattern, health path and grace", saved.Backends)
	}
	if saved.ReadyRegex != "" || saved.HealthPath != "" || saved.Grace != "4s" {
		t.Errorf("shared settings: got %q %q %q, want them as saved", saved.ReadyRegex, saved.HealthPath, saved.Grace)
	}
	bad := settings.Backend{Name: "bad", Kind: settings.KindCustom, Command: pythonServer(t), ReadyRegex: "port [0-9]+"}
	if err := app.AddBackend(bad); err == nil || !strings.Contains(err.Error(), "group for the port") {
		t.Errorf("a ready pattern without a group: got %v, want the capture group refused", err)
	}
}

// TestAppAddBackendSavesItsHost: the Add backend form's Host reaches
// config.json with the backend (disabled here: nothing is started on a
// host the test does not have), and a host ssh would misread is refused
// with the field's label, which the form puts under its Host field.
func TestAppAddBackendSavesItsHost(t *testing.T) {
	app, _, _ := startApp(t)
	far := settings.Backend{Name: "far", Kind: settings.KindServe, Host: "me@build-box", Enabled: new(bool)}
	if err := app.AddBackend(far); err != nil {
		t.Fatal(err)
	}
	saved, _ := settings.Load(app.stateDir)
	if i := slices.IndexFunc(saved.Backends, func(b settings.Backend) bool { return b.Name == "far" }); i < 0 || !reflect.DeepEqual(saved.Backends[i], far) {
		t.Errorf("config.json backends: got %+v, want far with its host", saved.Backends)
	}
	bad := settings.Backend{Name: "bad", Kind: settings.KindServe, Host: "-oProxyCommand=x"}
	if err := app.AddBackend(bad); err == nil || !strings.Contains(err.Error(), settings.Labels["host"]+": ") {
		t.Errorf("a host starting with '-': got %v, want it refused on the Host field", err)
	}
}

// A flag given to `run` (--grace here) wins over the saved settings for a
// backend added in the window too, as for the configured ones.
func TestAppAddBackendTakesTheFlags(t *testing.T) {
	app, _, _ := startAppWith(t, func(spec *runspec.Spec) { spec.Grace = 1500 * time.Millisecond })
	if _, err := app.SaveSettings(settings.Edit{Settings: settings.Settings{Grace: "4s"}, Fields: []string{"grace"}}); err != nil {
		t.Fatal(err)
	}
	web := settings.Backend{Name: "web", Kind: settings.KindCustom, Command: pythonServer(t, "-u"), ReadyRegex: `port (\d+)`, HealthPath: "/", Grace: "2s"}
	if err := app.AddBackend(web); err != nil {
		t.Fatal(err)
	}
	st := waitReady(t, app, "web")
	if args := shimArgs(t, st); !slices.Contains(args, "--grace=1.5s") {
		t.Errorf("shim: got %q, want --grace=1.5s (the flag's)", args)
	}
	saved, _ := settings.Load(app.stateDir)
	if i := slices.IndexFunc(saved.Backends, func(b settings.Backend) bool { return b.Name == "web" }); i < 0 || !reflect.DeepEqual(saved.Backends[i], web) {
		t.Errorf("config.json backends: got %+v, want web as added (a flag is never saved)", saved.Backends)
	}
}

// TestAppRelaunchAppliesSavedSettings: "Restart Hermes Desktop" on the
// Settings page hands over to a new run of the executable, which reads the
// settings saved since the app started. A launcher setting keeps the
// backend running (the same process); a setting given to a backend as it
// starts (the grace period, in the shim's flags) restarts it with the app.
func TestAppRelaunchAppliesSavedSettings(t *testing.T) {
	for _, c := range []struct {
		name             string
		edit             settings.Settings
		field            string
		restartsBackends bool
	}{
		{"launcher setting", settings.Settings{SampleInterval: "2s"}, "sample_interval", false},
		{"backend setting", settings.Settings{Grace: "3s"}, "grace", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			app, _, l := startApp(t)
			t.Cleanup(func() { stopInstance(t, app.stateDir) })
			before := waitOnlyReady(t, l)
			v, err := app.SaveSettings(settings.Edit{Settings: c.edit, Fields: []string{c.field}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(v.Pending, []string{c.field}) || v.PendingRestartsBackends != c.restartsBackends {
				t.Fatalf("pending after saving %s: got %q (backends restart: %v), want [%s] (%v)", c.field, v.Pending, v.PendingRestartsBackends, c.field, c.restartsBackends)
			}
			if err := app.Relaunch(); err != nil {
				t.Fatalf("Relaunch: %v", err)
			}
			select {
			case <-l.HandedOff():
			default:
				t.Fatal("Relaunch returned, but this instance was not handed over")
			}
			var after model.BackendStatus
			waitFor(t, "the new instance's ready backend", func() bool {
				st, ok := instanceStatus(t, app.stateDir)
				if !ok || st.Instance.PID == os.Getpid() || len(st.Backends) != 1 || st.Backends[0].State != model.StateReady {
					return false
				}
				after = st.Backends[0]
				return true
			})
			if restarted := after.PID != before.PID; restarted != c.restartsBackends {
				t.Errorf("backend pid %d -> %d: restarted %v, want %v", before.PID, after.PID, restarted, c.restartsBackends)
			}
			if c.restartsBackends {
				argv, err := proc.Cmdline(after.ShimPID)
				if err != nil || !slices.Contains(argv, "--grace=3s") {
					t.Errorf("the new shim's flags: got %q (%v), want the saved --grace=3s", argv, err)
				}
			}
		})
	}
}

func waitOnlyReady(t *testing.T, l *backend.Launcher) model.BackendStatus {
	t.Helper()
	var b model.BackendStatus
	waitFor(t, "a ready backend", func() bool {
		st := l.Status()
		if len(st.Backends) != 1 || st.Backends[0].State != model.StateReady {
			return false
		}
		b = st.Backends[0]
		return true
	})
	return b
}

// instanceStatus asks whichever instance serves the state dir, over its
// control socket, as `hermes-desktop status` does.
func instanceStatus(t *testing.T, dir string) (model.Status, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // also at cleanup, where t.Context() has ended
	defer cancel()
	st, err := protocol.OpStatus.Call(ctx, dir, "", protocol.None{})
	if err != nil {
		return model.Status{}, false
	}
	return st, true
}

// stopInstance stops the instance serving the state dir (a successor the
// test's handoff started), if any, and waits until it is gone.
func stopInstance(t *testing.T, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, ok := instanceStatus(t, dir)
	if !ok || st.Instance.PID == os.Getpid() {
		return
	}
	if _, err := protocol.OpStop.Call(ctx, dir, "", protocol.None{}); err != nil {
		t.Errorf("stop the new instance: %v", err)
	}
	for syscall.Kill(st.Instance.PID, 0) == nil {
		if ctx.Err() != nil {
			t.Errorf("the new instance (pid %d) did not stop", st.Instance.PID)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The tray's Open Hermes with no page to open (or no browser opener) says
// why in a notification and shows the window: it did nothing at all
// before (issue 31, item 9).
func TestTrayOpenHermesSaysWhyItCannot(t *testing.T) {
	app, ui, _ := startApp(t) // a serve backend: no page
	n := &notifications{}
	app.win.notify = n.notify
	menuActions{app}.OpenHermes()
	if n.count() != 1 || n.shown[0] != "Could not open Hermes" {
		t.Errorf("notifications: %q, want one saying it could not open Hermes", n.shown)
	}
	ui.mu.Lock()
	shown := ui.shown
	ui.mu.Unlock()
	if shown != 1 {
		t.Errorf("the window was shown %d times, want once (it says why there)", shown)
	}
}

// The tray's Save a diagnostic report… saves it in Downloads and says so.
func TestTraySavesADiagnosticReport(t *testing.T) {
	home := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(home, "Downloads"), 0o700))
	t.Setenv("HOME", home)
	app, _, _ := startApp(t)
	n := &notifications{}
	app.win.notify = n.notify
	menuActions{app}.SaveReport()
	app.win.end()
	reports, _ := filepath.Glob(filepath.Join(home, "Downloads", "hermes-desktop-report-*.zip"))
	if len(reports) != 1 || n.count() != 1 || n.shown[0] != "Diagnostic report saved" {
		t.Fatalf("reports %v, notifications %q; want one report and one notification saying so", reports, n.shown)
	}
	if p := app.lastReport.Load(); p == nil || *p != reports[0] {
		t.Errorf("the folder Show in folder opens is not the report's: %v", p)
	}
}
