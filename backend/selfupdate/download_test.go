package selfupdate

import (
	"testing"

	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
)

// The status says what an update downloads only while one is offered: a
// check that offers nothing, or another feed, clears it.
func TestStatusDownloadOnlyWhileOffered(t *testing.T) {
	pub, priv := testUpdateKey(t)
	first, second := newTestFeed(t, priv, "1.1.0"), newTestFeed(t, priv, "1.2.0")
	u := newTestUpdater(t, Config{Keys: []string{pub.String()}})
	offered := func(feed string) {
		t.Helper()
		u.SettingsSaved(settings.Settings{UpdateFeed: feed})
		if chk, err := u.Check(t.Context(), false); err != nil || !chk.Available {
			t.Fatalf("check: %+v %v, want an update offered", chk, err)
		}
		if d := u.Status().Download; d == nil || d.Size != 6 {
			t.Fatalf("offered: got download %+v, want the artifact's 6 bytes", d)
		}
	}
	offered(first.url)
	if err := update.MarkBad(u.dir, update.BadVersion{Version: "1.1.0", Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if chk, _ := u.Check(t.Context(), false); chk.Available {
		t.Fatalf("check after 1.1.0 went bad: %+v, want nothing offered", chk)
	}
	if d := u.Status().Download; d != nil {
		t.Errorf("nothing offered: got download %+v, want none", d)
	}
	offered(second.url)
	u.SettingsSaved(settings.Settings{UpdateFeed: first.url})
	if d := u.Status().Download; d != nil {
		t.Errorf("another feed, not checked yet: got download %+v, want none", d)
	}
}
