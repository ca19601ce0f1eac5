package update

import "time"

// What the launcher reports of its self-update (status, `update check`,
// `update apply`), shared with the CLI and the window.

// State is where the self-update is.
type State string

// Self-update states.
const (
	StateOff         State = "off"       // no key, no feed or a development build: Error says which
	StateIdle        State = "idle"      // up to date, or not checked yet
	StateChecking    State = "checking"  // asking the feed
	StateAvailable   State = "available" // a newer version; Command says how, for a package-managed copy
	StateDownloading State = "downloading"
	StateReady       State = "ready"    // downloaded and verified: "Restart to update"
	StateApplying    State = "applying" // smoke test, swap, handoff
	StateFailed      State = "failed"   // Error says why; the next check tries again
)

// Info is the self-update's state, in status as instance.update.
type Info struct {
	State   State  `json:"state"`
	Current string `json:"current"`
	// Latest is the newest version the feed offers ("" until a check).
	Latest string `json:"latest,omitempty"`
	Notes  string `json:"notes,omitempty"`
	// Bytes, Total and Speed (bytes per second) describe the download.
	Bytes int64   `json:"bytes,omitempty"`
	Total int64   `json:"total,omitempty"`
	Speed float64 `json:"speed,omitempty"`
	// Error says, in words, why updates are off or what failed; Reason
	// names it in one word (disabled, offline, signature, checksum, ...).
	Error  string `json:"error,omitempty"`
	Reason string `json:"reason,omitempty"`
	// BuildOff: updates are off in this build (ErrBuildOff), so a feed in
	// the settings changes nothing; false when they are on, or off only
	// for want of a feed.
	BuildOff bool `json:"build_off,omitempty"`
	// Command updates a package-managed copy, which is never replaced.
	Command string `json:"command,omitempty"`
	// Skipped is the version the user chose to skip.
	Skipped string `json:"skipped,omitempty"`
	// Automatic: a ready update is applied when the backends are idle.
	Automatic bool `json:"automatic,omitempty"`
	// Feed is the feed in use, any password in it masked; "" when none is
	// set.
	Feed string `json:"feed,omitempty"`
	// FeedFrom and AutomaticFrom name the flag or environment variable
	// that set Feed and Automatic ("--update-feed",
	// "HERMES_DESKTOP_UPDATE_FEED"); those win over the settings, even
	// changed while running. "" means the value is the settings'.
	FeedFrom      string `json:"feed_from,omitempty"`
	AutomaticFrom string `json:"automatic_from,omitempty"`
	// CheckedAt is when the feed in use was last asked; nil until then.
	CheckedAt *time.Time `json:"checked_at,omitempty"`
	// ProbationUntil is set while this instance, just updated, is in its
	// health window: a failure before then rolls it back.
	ProbationUntil *time.Time `json:"probation_until,omitempty"`
	// Download is what the offered update downloads; nil until offered.
	Download *Download `json:"download,omitempty"`
}

// Download is what an update fetches: a patch from the installed
// version, or the full artifact.
type Download struct {
	// Size is the bytes to download; Full the full artifact's.
	Size int64 `json:"size"`
	Full int64 `json:"full"`
	// Patch: Size is a patch's.
	Patch bool `json:"patch,omitempty"`
}

// Check is what a check found (`update check --json`).
type Check struct {
	Current   string `json:"current"`
	Latest    string `json:"latest"`
	Available bool   `json:"available"`
	Notes     string `json:"notes"`
	// Reason is why nothing is offered (disabled, up-to-date, no-build,
	// rollout, skipped, bad), or package-managed when the update is for the
	// package manager to install; "" when it can be applied. A check that
	// failed says why in one word too (offline, signature, stale, ...).
	Reason string `json:"reason"`
	// Message says the same in words; Command is the package manager's.
	Message string `json:"message,omitempty"`
	Command string `json:"command,omitempty"`
	// Download is what applying it downloads; nil when nothing is offered.
	Download *Download `json:"download,omitempty"`
}

// Result is what a successful apply reports.
type Result struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	NewPID    int     `json:"new_pid"`
	ElapsedMS float64 `json:"elapsed_ms"`
}

// Failed reports whether the check itself failed (offline, a bad
// signature or feed), as opposed to an answer (off, up to date, skipped,
// package-managed, busy).
func (c Check) Failed() bool {
	switch c.Reason {
	case "", "disabled", "up-to-date", "no-build", "rollout", "skipped", "package-managed", "busy":
		return false
	}
	return true
}
