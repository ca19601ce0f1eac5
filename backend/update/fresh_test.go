package update

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hermes-desktop/lockfile/lockfiletest"
)

// wantStale checks that err is a refused feed saying words.
func wantStale(t *testing.T, err error, words ...string) {
	t.Helper()
	if !errors.Is(err, ErrStale) || Reason(err) != "stale" {
		t.Fatalf("got %v (reason %q), want ErrStale", err, Reason(err))
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("got %q, want it to say %q", err, w)
		}
	}
}

// An expired manifest is refused with its date, whatever its signature;
// a fresh one is accepted.
func TestCheckRefusesExpired(t *testing.T) {
	k := newKey(t)
	f := newFeed(t)
	c := newClient(t, f, k, "1.0.0")
	f.publishWith(t, k, "1.1.0", "stable", "1.1.0", randomBytes(100), func(m *Manifest) { m.Expires = "2026-01-02T03:04:05Z" })
	_, err := check(t, c)
	wantStale(t, err, "the update feed's signature expired on 2026-01-02 03:04 UTC: the feed is stale or being replayed")
	if _, err := os.Stat(filepath.Join(c.cfg.Dir, FeedFile("stable"))); err == nil {
		t.Error("an expired manifest was recorded as accepted")
	}
	f.publish(t, k, "1.1.0", "stable", "1.1.0", randomBytes(100))
	if _, err := check(t, c); err != nil {
		t.Fatalf("a fresh manifest: got %v, want it accepted", err)
	}
	lockfiletest.WantPrivate(t, filepath.Join(c.cfg.Dir, FeedFile("stable")), 0o600)
}

// The trusted comment binds the expiry: a manifest whose expiry is not
// the signed one, or a signature without one (an old feed), is refused.
func TestCheckBindsExpiry(t *testing.T) {
	k := newKey(t)
	art := randomBytes(100)
	signed, served := expiresIn(time.Hour), expiresIn(30*24*time.Hour)
	cases := []struct {
		name    string
		comment string
		expires string
		want    error
		words   string
	}{
		{"JSON expiry differs from the signed one", TrustedComment("stable", "1.1.0", signed), served, ErrSignature, "expiring"},
		{"old comment, no expiry", Product + " stable 1.1.0", served, ErrStale, "names no expiry"},
		{"old manifest, no expiry", Product + " stable 1.1.0", "", ErrStale, "re-signed"},
		{"expiry not in UTC", TrustedComment("stable", "1.1.0", "2099-01-02T03:04:05+01:00"), "2099-01-02T03:04:05+01:00", ErrFeed, "RFC 3339 UTC"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFeed(t)
			f.publishWith(t, k, "1.1.0", "stable", "1.1.0", art, func(m *Manifest) { m.Expires = tc.expires })
			f.sig = k.sign(f.manifest, tc.comment)
			_, err := check(t, newClient(t, f, k, "1.0.0"))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.words) {
				t.Fatalf("got %v, want %v saying %q", err, tc.want, tc.words)
			}
		})
	}
}

// A manifest older than the newest accepted, still within its expiry, is
// a replay; a re-signed one (same version, later expiry) is newer.
func TestCheckRefusesReplay(t *testing.T) {
	k := newKey(t)
	f := newFeed(t)
	c := newClient(t, f, k, "1.0.0")
	art := randomBytes(100)
	serve := func(version, expires string) error {
		f.publishWith(t, k, version, "stable", version, art, func(m *Manifest) { m.Expires = expires })
		_, err := check(t, c)
		return err
	}
	e1, e2 := expiresIn(time.Hour), expiresIn(2*time.Hour)
	if err := serve("1.2.0", e1); err != nil {
		t.Fatalf("1.2.0: %v", err)
	}
	wantStale(t, serve("1.1.0", e2), "the update feed offers 1.1.0", "older than 1.2.0 (signed until", "already accepted: the feed is stale or being replayed")
	if err := serve("1.2.0", e1); err != nil {
		t.Fatalf("the same manifest again: got %v, want it accepted", err)
	}
	if err := serve("1.2.0", e2); err != nil {
		t.Fatalf("1.2.0 re-signed with a later expiry: got %v, want it accepted", err)
	}
	wantStale(t, serve("1.2.0", e1), "the update feed offers 1.2.0", "older than 1.2.0 (signed until")
	if err := serve("1.3.0", e1); err != nil {
		t.Fatalf("1.3.0 expiring earlier than 1.2.0's re-signature: got %v, want it accepted (a newer version)", err)
	}
	// Each channel keeps its own: another channel's record is not this one's.
	if _, err := os.Stat(filepath.Join(c.cfg.Dir, FeedFile("beta"))); err == nil {
		t.Error("a stable check wrote beta's record")
	}
}

// An unreadable record fails closed, names the file to delete, and once
// it is deleted the feed is accepted again.
func TestCheckCorruptRecord(t *testing.T) {
	k := newKey(t)
	f := newFeed(t)
	c := newClient(t, f, k, "1.0.0")
	f.publish(t, k, "1.1.0", "stable", "1.1.0", randomBytes(100))
	path := filepath.Join(c.cfg.Dir, FeedFile("stable"))
	for _, junk := range []string{"{not json", `{"version":"1.1.0+../x","expires":"2099-01-01T00:00:00Z"}`, `{"version":"1.1.0","expires":"soon"}`} {
		if err := os.WriteFile(path, []byte(junk), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := check(t, c)
		wantStale(t, err, path, "delete it to accept the feed again")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := check(t, c); err != nil {
		t.Fatalf("after deleting the record: got %v, want the feed accepted", err)
	}
}
