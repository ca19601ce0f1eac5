//go:build desktop && linux

package desktop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"hermes-desktop/backend/model"
	"hermes-desktop/internal/waitfor"
)

// startSessionBus runs a private dbus-daemon for the test and points
// DBUS_SESSION_BUS_ADDRESS at it; the daemon is killed at cleanup.
func startSessionBus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("dbus-daemon not installed")
	}
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the bus address: %v", err)
	}
	addr = strings.TrimSpace(addr)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	return addr
}

// recordedActions records what the tray asked of the app.
type recordedActions struct {
	mu       sync.Mutex // guards restarts
	restarts []string
}

func (a *recordedActions) ShowWindow()  {}
func (a *recordedActions) OpenHermes()  {}
func (a *recordedActions) Quit() error  { return nil }
func (a *recordedActions) ApplyUpdate() {}
func (a *recordedActions) SaveReport()  {}
func (a *recordedActions) Restart(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.restarts = append(a.restarts, name)
}

func (a *recordedActions) restarted() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.restarts)
}

// menuItem is one item of a dbusmenu layout, as a host reads it.
type menuItem struct {
	id       int32
	label    string
	visible  bool
	submenu  bool
	children []menuItem
}

func parseLayout(v []any) menuItem {
	id := v[0].(int32)
	props := v[1].(map[string]dbus.Variant)
	it := menuItem{id: id, visible: true}
	if l, ok := props["label"]; ok {
		it.label, _ = l.Value().(string)
	}
	if vis, ok := props["visible"]; ok {
		it.visible, _ = vis.Value().(bool)
	}
	if cd, ok := props["children-display"]; ok {
		it.submenu = cd.Value() == "submenu"
	}
	for _, c := range v[2].([]dbus.Variant) {
		it.children = append(it.children, parseLayout(c.Value().([]any)))
	}
	return it
}

// visibleLabels lists the labels a host shows, submenus as "Parent/Child".
func (it menuItem) visibleLabels(prefix string) []string {
	var out []string
	for _, c := range it.children {
		if !c.visible || c.label == "" {
			continue
		}
		out = append(out, prefix+c.label)
		out = append(out, c.visibleLabels(prefix+c.label+"/")...)
	}
	return out
}

func (it menuItem) find(label string) (menuItem, bool) {
	for _, c := range it.children {
		if c.label == label {
			return c, true
		}
		if f, ok := c.find(label); ok {
			return f, true
		}
	}
	return menuItem{}, false
}

func getLayout(t *testing.T, menu dbus.BusObject) menuItem {
	t.Helper()
	var rev uint32
	var layout []any
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := menu.CallWithContext(ctx, "com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &layout); err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	return parseLayout(layout)
}

func tooltipTitle(t *testing.T, item dbus.BusObject) string {
	t.Helper()
	v, err := item.GetProperty("org.kde.StatusNotifierItem.ToolTip")
	if err != nil {
		t.Fatalf("get ToolTip: %v", err)
	}
	var tip struct {
		Icon   string
		Pixmap []struct {
			W, H int32
			Data []byte
		}
		Title, Text string
	}
	if err := dbus.Store([]any{v.Value()}, &tip); err != nil {
		t.Fatalf("read ToolTip %v: %v", v, err)
	}
	return tip.Title
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitfor.Until(t, 20*time.Second, what, cond)
}

func twoBackends() model.Status {
	return model.Status{Backends: []model.BackendStatus{
		{Name: "alpha", State: model.StateReady, Port: 4001},
		{Name: "beta", State: model.StateStarting},
	}}
}

// TestTrayOverDBus reads the tray as a StatusNotifierItem host does, over a
// real session bus: the first full layout request has every item, the
// tooltip carries the status line, a request for an unknown item answers
// at once, and a restart item clicked after the menu was rebuilt restarts
// its backend. systray is a process-wide singleton: one test holds it.
func TestTrayOverDBus(t *testing.T) {
	startSessionBus(t)
	actions := &recordedActions{}
	tray := StartTray(actions, Icons{PNG: mustReadIcon(t)})
	t.Cleanup(tray.Stop)
	tray.SetStatus(twoBackends())

	conn, err := dbus.SessionBusPrivate()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatal(err)
	}
	dest := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", os.Getpid())
	item := conn.Object(dest, "/StatusNotifierItem")
	menu := conn.Object(dest, "/StatusNotifierItem/menu")
	want := "Hermes Desktop: 1 of 2 ready, 1 starting…"
	// The tooltip is read until the menu is built; GetLayout is not
	// called before: its first answer is the one under test.
	waitUntil(t, "the tooltip "+want, func() bool {
		v, err := item.GetProperty("org.kde.StatusNotifierItem.ToolTip")
		return err == nil && strings.Contains(fmt.Sprint(v.Value()), want)
	})
	if got := tooltipTitle(t, item); got != want {
		t.Errorf("tooltip: got %q, want %q", got, want)
	}

	root := getLayout(t, menu)
	labels := root.visibleLabels("")
	for _, l := range []string{"1 of 2 ready, 1 starting…", "Open Hermes", "Show window", "Restart all backends", "Restart alpha", "Restart beta", "Save a diagnostic report…", "Quit"} {
		if !slices.Contains(labels, l) {
			t.Errorf("first GetLayout(0, -1): %q missing; got %q", l, labels)
		}
	}
	var empty []string
	var walk func(menuItem)
	walk = func(it menuItem) {
		for _, c := range it.children {
			if c.visible && c.submenu && len(c.children) == 0 {
				empty = append(empty, c.label)
			}
			walk(c)
		}
	}
	walk(root)
	if len(empty) > 0 {
		t.Errorf("first GetLayout(0, -1): submenus without children: %q", empty)
	}

	// An unknown item: an error at once, not the caller's 25 s timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var v dbus.Variant
	err = menu.CallWithContext(ctx, "com.canonical.dbusmenu.GetProperty", 0, int32(9999), "label").Store(&v)
	var dbusErr dbus.Error
	if !errors.As(err, &dbusErr) || dbusErr.Name != "org.freedesktop.DBus.Error.InvalidArgs" {
		t.Errorf("GetProperty of an unknown item: got %v, want an InvalidArgs error", err)
	}
	status, _ := root.find("1 of 2 ready, 1 starting…")
	err = menu.CallWithContext(ctx, "com.canonical.dbusmenu.GetProperty", 0, status.id, "no-such-property").Store(&v)
	if !errors.As(err, &dbusErr) || dbusErr.Name != "org.freedesktop.DBus.Error.InvalidArgs" {
		t.Errorf("GetProperty of an unknown property: got %v, want an InvalidArgs error", err)
	}

	// One backend left, then two again (renamed): the menu is rebuilt in
	// order and its new items work.
	tray.SetStatus(model.Status{Backends: []model.BackendStatus{{Name: "alpha", State: model.StateReady, Port: 4001}}})
	waitUntil(t, "the one-backend menu", func() bool {
		l := getLayout(t, menu).visibleLabels("")
		return slices.Contains(l, "Restart backend") && !slices.Contains(l, "Restart beta")
	})
	if got := tooltipTitle(t, item); got != "Hermes Desktop: Backend ready on :4001" {
		t.Errorf("tooltip: got %q, want the one backend's line", got)
	}
	st := twoBackends()
	st.Backends[1].Name = "gamma"
	tray.SetStatus(st)
	var gamma menuItem
	waitUntil(t, "the restart item of gamma", func() bool {
		var ok bool
		gamma, ok = getLayout(t, menu).find("Restart gamma")
		return ok
	})
	l := getLayout(t, menu).visibleLabels("")
	if i, j := slices.Index(l, "Restart gamma"), slices.Index(l, "Quit"); i < 0 || j < i {
		t.Errorf("menu order: got %q, want Restart gamma before Quit", l)
	}
	if err := menu.Call("com.canonical.dbusmenu.Event", 0, gamma.id, "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
		t.Fatalf("click Restart gamma: %v", err)
	}
	waitUntil(t, "Restart(gamma)", func() bool { return slices.Contains(actions.restarted(), "gamma") })
}

func mustReadIcon(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../build/trayicon.png")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// notificationServer plays the session's notification server: it records
// each notification's summary.
type notificationServer struct {
	mu        sync.Mutex // guards summaries
	summaries []string
}

func (n *notificationServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.summaries = append(n.summaries, summary)
	return uint32(len(n.summaries)), nil
}

func TestNotify(t *testing.T) {
	startSessionBus(t)
	if err := Notify("nobody listens", ""); err == nil {
		t.Errorf("Notify without a notification server: got nil, want an error")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	srv := &notificationServer{}
	if err := conn.Export(srv, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: %v %v", r, err)
	}
	if err := Notify("Hermes Desktop is still running", "body"); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if want := []string{"Hermes Desktop is still running"}; !slices.Equal(srv.summaries, want) {
		t.Errorf("notifications: got %q, want %q", srv.summaries, want)
	}
}
