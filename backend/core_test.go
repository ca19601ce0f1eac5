//go:build unix

package backend

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
)

// openDeferred opens a launcher whose core Prepare finds with locate, on a
// fresh state dir, with no hermes on PATH: a dashboard is the built-in one.
// The backends must be disabled: nothing runs from the made-up paths.
func openDeferred(t *testing.T, locate func() string, specs ...runspec.Spec) (l *Launcher, start func()) {
	t.Helper()
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	var err error
	l, err = Open(Config{
		StateDir: filepath.Join(dir, "state"), HermesHome: filepath.Join(dir, "home"), Self: "/opt/hermes-desktop/hermes-desktop",
		Backends: specs, LocateCore: locate, NoBootReap: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	start = func() { once.Do(l.Start) } // the backends are disabled: nothing is spawned
	t.Cleanup(func() {
		start()
		if err := l.Shutdown(); err != nil {
			t.Error(err)
		}
	})
	return l, start
}

// The core found at Prepare is what the built-in backend and the shims run
// from; a custom backend that names the app's own executable keeps it; and
// Status, asked before, answers once the list is fixed, never with a
// half-made one.
func TestPrepareUsesTheCoreItFinds(t *testing.T) {
	const core = "/state/core/hermes-desktop-core-0123456789abcdef"
	found := make(chan struct{})
	l, _ := openDeferred(t, func() string { <-found; return core },
		runspec.Spec{Name: "web", Kind: settings.KindDashboard, Disabled: true},
		runspec.Spec{Name: "own", Command: []string{"/opt/hermes-desktop/hermes-desktop", "serve"}, Disabled: true})
	status := make(chan int, 1)
	go func() { status <- len(l.Status().Backends) }()
	go l.Prepare()
	select {
	case n := <-status:
		t.Fatalf("Status answered with %d backends while the core was still being found", n)
	case <-time.After(100 * time.Millisecond):
	}
	close(found)
	if n := <-status; n != 2 {
		t.Fatalf("Status: %d backends, want 2", n)
	}
	if got := l.Core(); got != core {
		t.Errorf("Core: %q, want %q", got, core)
	}
	st := l.Status()
	if cmd := st.Backends[0].Command; len(cmd) == 0 || cmd[0] != core || !st.Backends[0].Builtin {
		t.Errorf("web: command %q (built-in %v), want the core's serve", cmd, st.Backends[0].Builtin)
	}
	if cmd := st.Backends[1].Command; len(cmd) == 0 || cmd[0] != "/opt/hermes-desktop/hermes-desktop" {
		t.Errorf("own: command %q, want the one configured", cmd)
	}
}

// A core that cannot be used ("") leaves everything on the app's own
// executable; a backend added later resolves with what Prepare settled.
func TestPrepareWithoutACoreKeepsSelf(t *testing.T) {
	l, start := openDeferred(t, func() string { return "" }, runspec.Spec{Name: "web", Kind: settings.KindServe, Disabled: true})
	start()
	if got := l.Core(); got != "/opt/hermes-desktop/hermes-desktop" {
		t.Errorf("Core: %q, want Self", got)
	}
	if err := l.AddBackend(runspec.Spec{Name: "api", Kind: settings.KindDashboard, Disabled: true}); err != nil {
		t.Fatal(err)
	}
	for _, b := range l.Status().Backends {
		if len(b.Command) == 0 || b.Command[0] != "/opt/hermes-desktop/hermes-desktop" || !b.Builtin {
			t.Errorf("%s: command %q (built-in %v), want Self's", b.Name, b.Command, b.Builtin)
		}
	}
}

// Open still refuses a bad configuration at once, before any core is
// looked for.
func TestOpenChecksBackendsBeforeTheCore(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(Config{
		StateDir: filepath.Join(dir, "state"), Self: "/opt/hermes-desktop/hermes-desktop", NoBootReap: true,
		Backends:   []runspec.Spec{{Name: "a", ReadyRegex: "("}},
		LocateCore: func() string { t.Error("the core was looked for"); return "" },
	})
	if err == nil {
		t.Fatal("Open accepted a ready pattern that does not compile")
	}
	if _, err := os.Stat(filepath.Join(dir, "state", "core")); err == nil {
		t.Error("Open made a core directory")
	}
}
