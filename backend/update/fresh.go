package update

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"
)

// Fresh feeds only (TUF's freeze and rollback attacks): a signed manifest
// expires, and one older than the newest this install has accepted is a
// replay. Both are refused, whatever the signature says.
//
// The newest accepted manifest of each channel is kept in
// <Dir>/feed-<channel>.json (FeedFile), 0600, written atomically when a
// newer one verifies. "Newer" orders by version, then by expiry: a
// re-signed manifest (the same version, a later expiry) is newer; an older
// version, or the same version with an earlier expiry, is a replay. An
// unreadable record refuses every manifest (it cannot tell a replay) and
// says which file to delete.

// expiryLayout is how an expiry is spelled: RFC 3339, UTC, whole seconds.
const expiryLayout = "2006-01-02T15:04:05Z"

// FeedFile is the name, in <state>/updates, of the record of the newest
// manifest accepted on channel.
func FeedFile(channel string) string { return "feed-" + channel + ".json" }

// ParseExpiry reads a manifest's expiry. Only the one spelling
// (2026-12-20T10:00:00Z) is accepted: the trusted comment repeats it, and
// the two must be the same string.
func ParseExpiry(s string) (time.Time, error) {
	t, err := time.Parse(expiryLayout, s)
	if err != nil || t.Format(expiryLayout) != s {
		return time.Time{}, fmt.Errorf("expires %q is not an RFC 3339 UTC time like 2026-12-20T10:00:00Z", s)
	}
	return t, nil
}

// FormatExpiry spells t as a manifest's expiry (UTC, whole seconds).
func FormatExpiry(t time.Time) string { return t.UTC().Truncate(time.Second).Format(expiryLayout) }

// feedRecord is the newest manifest accepted on one channel.
type feedRecord struct {
	Version string `json:"version"`
	Expires string `json:"expires"`
	// Accepted is when it was first accepted, for a person reading the file.
	Accepted time.Time `json:"accepted_at"`
}

// checkFresh refuses an expired manifest and one older than the newest
// accepted on channel, and records m when it is newer. dir "" keeps no
// record (the expiry is still checked).
func checkFresh(dir, channel string, m *Manifest, now time.Time) error {
	exp, err := ParseExpiry(m.Expires)
	if err != nil {
		return fmt.Errorf("%w: manifest: %w", ErrFeed, err)
	}
	if !now.Before(exp) {
		return staleError(fmt.Sprintf("the update feed's signature expired on %s: the feed is stale or being replayed", sayTime(exp)))
	}
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, FeedFile(channel))
	last, lastExp, err := readFeedRecord(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return recordFeed(dir, channel, m, now)
	case err != nil:
		return staleError(fmt.Sprintf("cannot tell whether the update feed is fresh: %s, the record of the newest feed this install accepted, is unreadable (%v); delete it to accept the feed again", path, err))
	}
	v, _ := ParseVersion(m.Version) // Validate parsed it
	c := v.Compare(last)
	if c == 0 {
		c = exp.Compare(lastExp)
	}
	switch {
	case c < 0:
		return staleError(fmt.Sprintf("the update feed offers %s (signed until %s), older than %s (signed until %s) that this install already accepted: the feed is stale or being replayed",
			m.Version, sayTime(exp), last, sayTime(lastExp)))
	case c > 0:
		return recordFeed(dir, channel, m, now)
	}
	return nil
}

// readFeedRecord reads the newest manifest accepted on a channel: its
// version and expiry. A record that does not parse is an error like a
// file that cannot be read: fail closed.
func readFeedRecord(path string) (Version, time.Time, error) {
	var r feedRecord
	if err := readJSON(path, &r); err != nil {
		return Version{}, time.Time{}, err
	}
	v, err := ParseVersion(r.Version)
	if err != nil {
		return Version{}, time.Time{}, err
	}
	exp, err := ParseExpiry(r.Expires)
	return v, exp, err
}

// recordFeed makes m the newest manifest accepted on channel.
func recordFeed(dir, channel string, m *Manifest, now time.Time) error {
	return writeJSON(dir, FeedFile(channel), feedRecord{Version: m.Version, Expires: m.Expires, Accepted: now.UTC()})
}

// sayTime is a time for a sentence: "2026-12-20 10:00 UTC".
func sayTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 MST") }
