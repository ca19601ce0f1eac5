package update

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/lockfile"
	"hermes-desktop/lockfile/lockfiletest"
)

func share(n int) *int { return &n }

// rollout 0: nobody; 100 (or absent): everybody; critical: everybody
// whatever the share; 30: about 30% of 1,000 installs.
func TestOffered(t *testing.T) {
	for _, tc := range []struct {
		rollout  *int
		critical bool
		want     int // of 1,000 ids
		band     int // give or take
	}{
		{share(0), false, 0, 0},
		{share(100), false, 1000, 0},
		{nil, false, 1000, 0},
		{share(0), true, 1000, 0},
		{share(30), false, 300, 50},
	} {
		m := Manifest{Rollout: tc.rollout, Critical: tc.critical}
		got := 0
		for i := range 1000 {
			if m.Offered(bucketOf(fmt.Sprintf("%032x", i*7919+1))) {
				got++
			}
		}
		if got < tc.want-tc.band || got > tc.want+tc.band {
			t.Errorf("rollout %v critical %v: offered to %d of 1,000 installs, want %d ± %d", describeShare(tc.rollout), tc.critical, got, tc.want, tc.band)
		}
	}
}

func describeShare(p *int) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}

// Each install is offered the release by its id alone: a check with
// rollout 0 names why, the id is made once (0600), and the same id is
// offered the same releases every time.
func TestCheckRollout(t *testing.T) {
	k := newKey(t)
	f := newFeed(t)
	c := newClient(t, f, k, "1.0.0")
	publish := func(version string, rollout *int, critical bool) {
		f.publishWith(t, k, version, "stable", version, randomBytes(100), func(m *Manifest) { m.Rollout, m.Critical = rollout, critical })
	}
	publish("1.1.0", share(0), false)
	rel, err := check(t, c)
	if !errors.Is(err, ErrRollout) || !errors.Is(err, ErrUpToDate) || Reason(err) != "rollout" || rel == nil || rel.Version != "1.1.0" ||
		!strings.Contains(err.Error(), "1.1.0 is being rolled out to 0% of installs; this install is not yet among them") {
		t.Fatalf("rollout 0: got %+v, %v (reason %q), want 1.1.0 named and not offered, saying why", rel, err, Reason(err))
	}
	idPath := filepath.Join(c.cfg.Dir, IDFile)
	lockfiletest.WantPrivate(t, idPath, 0o600)
	id, err := installID(c.cfg.Dir)
	if err != nil || lockfile.ValidNonce(id) != nil {
		t.Fatalf("installID: got %q, %v", id, err)
	}
	publish("1.1.0", share(0), true)
	if _, err := check(t, c); err != nil {
		t.Fatalf("critical at rollout 0: got %v, want it offered", err)
	}
	publish("1.2.0", share(100), false)
	if _, err := check(t, c); err != nil {
		t.Fatalf("rollout 100: got %v, want it offered", err)
	}
	// The bucket decides, release after release: just above it is offered,
	// at it is not.
	b := bucketOf(id)
	for i, v := range []string{"1.3.0", "1.4.0"} {
		publish(v, share(b+1), false)
		if _, err := check(t, c); err != nil {
			t.Errorf("release %d at rollout %d (bucket %d): got %v, want it offered", i, b+1, b, err)
		}
	}
	publish("1.5.0", share(b), false)
	if _, err := check(t, c); !errors.Is(err, ErrRollout) {
		t.Errorf("rollout %d (bucket %d): got %v, want ErrRollout", b, b, err)
	}
	if again, _ := installID(c.cfg.Dir); again != id {
		t.Errorf("the install id changed: got %q, want %q", again, id)
	}
}

// A damaged id is replaced with a new one; a missing one is made.
func TestInstallIDRepaired(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "updates")
	first, err := installID(dir)
	if err != nil || lockfile.ValidNonce(first) != nil {
		t.Fatalf("got %q, %v, want a new id", first, err)
	}
	if err := os.WriteFile(filepath.Join(dir, IDFile), []byte("not hex\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	second, err := installID(dir)
	if err != nil || lockfile.ValidNonce(second) != nil || second == first {
		t.Fatalf("got %q, %v, want a new valid id", second, err)
	}
	if again, _ := installID(dir); again != second {
		t.Errorf("got %q, then %q: want the id kept", second, again)
	}
}

// An id that cannot be read or made does not fail the check: the install
// comes last, as one without an id, and the log says why.
func TestRolloutWithoutAnID(t *testing.T) {
	k := newKey(t)
	f := newFeed(t)
	var log bytes.Buffer
	dir := t.TempDir()
	c := New(Config{FeedURL: f.url(), Keys: []string{k.String()}, Current: "1.0.0", Dir: dir, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err := os.Mkdir(filepath.Join(dir, IDFile), 0o700); err != nil { // where the id goes: neither read nor replaced
		t.Fatal(err)
	}
	f.publishWith(t, k, "1.1.0", "stable", "1.1.0", randomBytes(100), func(m *Manifest) { m.Rollout = share(99) })
	if _, err := check(t, c); !errors.Is(err, ErrRollout) || !strings.Contains(log.String(), "no install id") {
		t.Fatalf("rollout 99 without an id: got %v, log %q; want ErrRollout (bucket 100) and the log saying why", err, log.String())
	}
	f.publishWith(t, k, "1.2.0", "stable", "1.2.0", randomBytes(100), func(m *Manifest) { m.Rollout = share(100) })
	if _, err := check(t, c); err != nil {
		t.Fatalf("rollout 100 without an id: got %v, want it offered", err)
	}
}
