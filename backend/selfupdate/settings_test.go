package selfupdate

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"aead.dev/minisign"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
	"hermes-desktop/contract/errkind"
	"hermes-desktop/internal/waitfor"
)

// testFeed serves a signed manifest that offers version, and counts the
// manifest requests.
type testFeed struct {
	url  string
	asks atomic.Int32
}

func newTestFeed(t *testing.T, priv minisign.PrivateKey, version string) *testFeed {
	t.Helper()
	sum := sha256.Sum256([]byte("binary"))
	data, sig, err := update.SignManifest(priv, "stable", &update.Manifest{Version: version, Expires: update.FormatExpiry(time.Now().Add(time.Hour)),
		Platforms: map[string]update.Artifact{update.Platform(): {URL: "hermes-desktop", SHA256: hex.EncodeToString(sum[:]), Size: 6}}})
	if err != nil {
		t.Fatal(err)
	}
	f := &testFeed{}
	mux := http.NewServeMux()
	mux.HandleFunc("/stable.json", func(w http.ResponseWriter, _ *http.Request) {
		f.asks.Add(1)
		w.Write(data)
	})
	mux.HandleFunc("/stable.json.minisig", func(w http.ResponseWriter, _ *http.Request) { w.Write(sig) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.url = srv.URL + "/stable.json"
	return f
}

// idleHost is a launcher with no backends that never hands over: enough
// for checks against a loopback feed. It counts the status changes.
type idleHost struct{ published atomic.Int32 }

func (h *idleHost) HandOff(context.Context, protocol.HandoffArgs) (Successor, error) {
	return nil, fmt.Errorf("%w: no handoff in this test", errkind.ErrRefused)
}
func (h *idleHost) HandedOver()                 {}
func (h *idleHost) Busy() error                 { return nil }
func (h *idleHost) CrashCounts() map[string]int { return nil }
func (h *idleHost) StartFresh(context.Context, string) (Successor, error) {
	return nil, fmt.Errorf("%w: no start in this test", errkind.ErrRefused)
}
func (h *idleHost) PublishStatus()   { h.published.Add(1) }
func (h *idleHost) AddNotice(string) {}

// newTestUpdater is an Updater over an idle launcher, with nothing started.
func newTestUpdater(t *testing.T, cfg Config) *Updater {
	t.Helper()
	return newTestUpdaterOn(t, cfg, &idleHost{})
}

// newTestUpdaterOn is an Updater over launcher, with nothing started; Stop
// runs at the end of the test.
func newTestUpdaterOn(t *testing.T, cfg Config, launcher Launcher) *Updater {
	t.Helper()
	cfg.StateDir, cfg.Version = t.TempDir(), "1.0.0"
	cfg.Logger, cfg.Announce = slog.New(slog.NewTextHandler(io.Discard, nil)), os.Stderr
	u := New(cfg, launcher)
	t.Cleanup(u.Stop)
	return u
}

func testUpdateKey(t *testing.T) (minisign.PublicKey, minisign.PrivateKey) {
	t.Helper()
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

// A feed saved in the settings is used by the next check of the running
// instance, without a restart; saving no feed turns updates off again.
func TestSettingsSavedSwitchesTheFeed(t *testing.T) {
	pub, priv := testUpdateKey(t)
	feed := newTestFeed(t, priv, "1.1.0")
	u := newTestUpdater(t, Config{Keys: []string{pub.String()}})
	if st := u.Status(); st.State != update.StateOff || st.Feed != "" {
		t.Fatalf("before: got state %s, feed %q; want off, none", st.State, st.Feed)
	}

	u.SettingsSaved(settings.Settings{UpdateFeed: feed.url, UpdateAutomatically: true})
	st := u.Status()
	if st.State != update.StateIdle || st.Feed != feed.url || !st.Automatic || st.Error != "" {
		t.Fatalf("after saving a feed: got %+v, want idle, feed %s, automatic", st, feed.url)
	}
	if !u.automatic.Load() {
		t.Error("the scheduler would not apply automatically")
	}
	select {
	case <-u.feed.changed:
	default:
		t.Error("the scheduler was not told about the new feed")
	}
	chk, err := u.Check(t.Context(), false)
	if err != nil || chk.Latest != "1.1.0" || feed.asks.Load() != 1 {
		t.Fatalf("check: got %+v, %v, %d asks; want 1.1.0 from the saved feed", chk, err, feed.asks.Load())
	}

	// Saving other settings keeps what the feed offered.
	u.SettingsSaved(settings.Settings{UpdateFeed: feed.url, UpdateAutomatically: true, Grace: "3s"})
	if st := u.Status(); st.State != update.StateAvailable || st.Latest != "1.1.0" {
		t.Errorf("after saving the same feed: got state %s, latest %q; want available, 1.1.0", st.State, st.Latest)
	}

	u.SettingsSaved(settings.Settings{})
	st = u.Status()
	if st.State != update.StateOff || st.Feed != "" || st.Latest != "" || st.Automatic || st.Reason != "disabled" {
		t.Errorf("after clearing the feed: got %+v, want off, nothing offered, not automatic", st)
	}
	if chk, _ := u.Check(t.Context(), false); chk.Reason != "disabled" || feed.asks.Load() != 1 {
		t.Errorf("check with no feed: got reason %q after %d asks, want disabled and no more asks", chk.Reason, feed.asks.Load())
	}
}

// A feed saved while a check, download or apply holds the updater is put
// in use when it ends, never in the middle of it.
func TestSettingsSavedWaitsForTheUpdaterToBeFree(t *testing.T) {
	pub, priv := testUpdateKey(t)
	a, b := newTestFeed(t, priv, "1.1.0"), newTestFeed(t, priv, "1.2.0")
	u := newTestUpdater(t, Config{Keys: []string{pub.String()}, Feed: a.url})
	if err := u.feed.acquire(t.Context()); err != nil {
		t.Fatal(err)
	}
	u.SettingsSaved(settings.Settings{UpdateFeed: b.url})
	if got := u.Status().Feed; got != a.url {
		t.Errorf("while busy: feed %s in use, want %s still", got, a.url)
	}
	u.feed.release()
	if got := u.Status().Feed; got != b.url {
		t.Errorf("once free: feed %s in use, want %s", got, b.url)
	}
	if chk, _ := u.Check(t.Context(), false); chk.Latest != "1.2.0" || a.asks.Load() != 0 {
		t.Errorf("check: got latest %q (%d asks of the old feed), want 1.2.0 from the new one", chk.Latest, a.asks.Load())
	}
}

// A feed or automatic updates given by flag or environment variable win
// over the settings, also when these are saved while running.
func TestSettingsSavedKeepsExplicitOptions(t *testing.T) {
	pub, priv := testUpdateKey(t)
	a, b := newTestFeed(t, priv, "1.1.0"), newTestFeed(t, priv, "1.2.0")
	u := newTestUpdater(t, Config{Keys: []string{pub.String()},
		Feed: a.url, FeedFrom: "--update-feed",
		Automatic: false, AutomaticFrom: "HERMES_DESKTOP_UPDATE_AUTOMATICALLY"})
	u.SettingsSaved(settings.Settings{UpdateFeed: b.url, UpdateAutomatically: true})
	st := u.Status()
	if st.Feed != a.url || st.FeedFrom != "--update-feed" || st.Automatic || st.AutomaticFrom != "HERMES_DESKTOP_UPDATE_AUTOMATICALLY" {
		t.Errorf("got feed %s from %q, automatic %v from %q; want the explicit ones", st.Feed, st.FeedFrom, st.Automatic, st.AutomaticFrom)
	}
	if u.automatic.Load() {
		t.Error("the scheduler would apply automatically")
	}
}

// Status shows the feed in use, but not a password in it.
func TestRedactFeed(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/hermes-desktop/stable.json": "https://example.com/hermes-desktop/stable.json",
		"https://me:secret@example.com/stable.json":      "https://me:xxxxx@example.com/stable.json",
		"": "",
	} {
		if got := redactFeed(in); got != want {
			t.Errorf("redactFeed(%q): got %q, want %q", in, got, want)
		}
	}
}

// Started with updates off, the scheduler checks a feed saved later, as it
// would have after a start with it.
func TestSchedulerChecksASavedFeed(t *testing.T) {
	pub, priv := testUpdateKey(t)
	feed := newTestFeed(t, priv, "1.1.0")
	u := newTestUpdater(t, Config{Keys: []string{pub.String()}, CheckInterval: time.Hour})
	u.firstCheck = 10 * time.Millisecond
	u.Start()
	time.Sleep(50 * time.Millisecond)
	u.SettingsSaved(settings.Settings{UpdateFeed: feed.url})
	if !waitfor.Try(5*time.Second, func() bool { return feed.asks.Load() > 0 }) {
		t.Fatal("the scheduler never asked the saved feed")
	}
}

// A build without an update key says so in its status, in words, whatever
// feed is saved: the Settings page then says the feed is saved but unused,
// not "applied" (issue 23).
func TestKeylessBuildSaysUpdatesAreOffInTheBuild(t *testing.T) {
	pub, priv := testUpdateKey(t)
	feed := newTestFeed(t, priv, "1.1.0")
	keyless := newTestUpdater(t, Config{})
	keyless.SettingsSaved(settings.Settings{UpdateFeed: feed.url})
	st := keyless.Status()
	if st.State != update.StateOff || !st.BuildOff {
		t.Errorf("keyless, feed saved: got state %s, build_off %v; want off, true", st.State, st.BuildOff)
	}
	if strings.Contains(st.Error, "make ") || strings.Contains(st.Error, "UPDATE_PUBKEY") {
		t.Errorf("keyless: got %q, want no build instruction in what a person reads", st.Error)
	}
	keyed := newTestUpdater(t, Config{Keys: []string{pub.String()}})
	if st := keyed.Status(); st.State != update.StateOff || st.BuildOff {
		t.Errorf("with a key, no feed: got state %s, build_off %v; want off, false", st.State, st.BuildOff)
	}
}
