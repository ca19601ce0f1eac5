package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"hermes-desktop/backend/update"
)

// Fresh feeds and staged rollout, as a user sees them in `update check`:
// an expired feed and a replayed older one are refused with the words the
// window shows too, a fresh one is accepted, and a release rolled out to a
// share this install is not among says so (critical overrides it).
func TestUpdateCheckFreshFeedsAndRollout(t *testing.T) {
	_, priv := updateKey()
	exe := install(t, buildVersion(t, "1.0.0", ""), update.TypePortable)
	f := newFeedServer(t)
	offer := func(version string, edit func(m *update.Manifest)) {
		m := update.Manifest{Version: version, Platforms: map[string]update.Artifact{
			update.Platform(): {URL: "../dl/hermes-desktop", SHA256: strings.Repeat("a", 64), Size: 10}}}
		edit(&m)
		f.offer(t, priv, m, func() {})
	}
	offer("1.1.0", func(m *update.Manifest) { m.Expires = "2026-01-02T03:04:05Z" })
	l, _ := startInstalled(t, exe, f, "3s")
	zero := 0
	steps := []struct {
		name    string
		version string
		edit    func(m *update.Manifest)
		code    int
		reason  string
		says    string
	}{
		{"expired", "", nil, 1, "stale", "The update check failed: the update feed's signature expired on 2026-01-02 03:04 UTC: the feed is stale or being replayed."},
		{"fresh", "1.2.0", func(*update.Manifest) {}, 0, "", "Hermes Desktop 1.2.0 is available (this is 1.0.0)."},
		{"replayed older", "1.1.0", func(*update.Manifest) {}, 1, "stale", "The update check failed: the update feed offers 1.1.0 (signed until"},
		{"rollout 0", "1.3.0", func(m *update.Manifest) { m.Rollout = &zero }, 0, "rollout",
			"No update for this install yet (Hermes Desktop 1.0.0): 1.3.0 is being rolled out to 0% of installs; this install is not yet among them."},
		{"critical", "1.3.0", func(m *update.Manifest) { m.Rollout, m.Critical = &zero, true }, 0, "", "Hermes Desktop 1.3.0 is available (this is 1.0.0)."},
	}
	for _, s := range steps {
		if s.version != "" {
			offer(s.version, s.edit)
		}
		out, errOut, code := l.CLI("update", "check")
		t.Logf("%s: update check (exit %d):\n%s%s", s.name, code, out, errOut)
		if code != s.code || !strings.Contains(out, s.says) {
			t.Errorf("%s: update check: exit %d %q, want exit %d saying %q", s.name, code, out, s.code, s.says)
		}
		out, _, _ = l.CLI("update", "check", "--json")
		var c update.Check
		if json.Unmarshal([]byte(out), &c) != nil || c.Reason != s.reason {
			t.Errorf("%s: update check --json: %q, want reason %q", s.name, out, s.reason)
		}
	}
	if st := status(t, l); st.Instance.Update == nil || st.Instance.Update.Latest != "1.3.0" {
		t.Errorf("status: %+v, want the update's state with 1.3.0 offered", st.Instance.Update)
	}
	stopAndCheck(t, l)
}
