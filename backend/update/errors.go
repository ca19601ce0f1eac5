package update

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"
)

// Sentinels for the reasons an update is not offered or not applied.
// Errors wrap one of them (check with errors.Is); Reason names it in one
// word for scripts. The code each travels as over the control socket is
// control/protocol's to say (protocol.UpdateError): this package knows
// nothing of the socket.
var (
	// ErrDisabled: this build has no update key, no feed is configured,
	// or the running version is not a release version.
	ErrDisabled = errors.New("updates are off")
	// ErrBuildOff: updates are off in this build whatever the settings
	// say (no update key, or not a release version); it wraps
	// ErrDisabled. Said for a person: the page shows it next to the feed.
	ErrBuildOff = fmt.Errorf("%w: this build of Hermes Desktop does not update itself", ErrDisabled)
	// ErrOffline: the feed or the artifact could not be reached.
	ErrOffline = errors.New("offline")
	// ErrFeed: the feed answered, but not with a usable manifest.
	ErrFeed = errors.New("bad feed")
	// ErrSignature: the manifest's signature does not verify with a
	// trusted key, or its trusted comment does not name this channel and
	// the manifest's version (a replayed or foreign manifest).
	ErrSignature = errors.New("bad signature")
	// ErrStale: the manifest verifies, but is not fresh: its signature
	// expired, it is older than one this install already accepted (a
	// replay), it names no expiry, or the record of the newest accepted
	// cannot be read. Its errors are the sentence the user reads, without
	// this word in front (staleError).
	ErrStale = errors.New("stale feed")
	// ErrChecksum: the artifact's size or sha256 differ from the manifest's.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrDiskFull: no space left to download or stage the new binary.
	ErrDiskFull = errors.New("disk full")
	// ErrInsecure: a feed or artifact URL that is neither https nor loopback.
	ErrInsecure = errors.New("insecure URL")
	// ErrUpToDate: no version newer than the running one is offered.
	ErrUpToDate = errors.New("no newer version")
	// ErrRollout: the feed's newer version is being rolled out to a
	// share of the installs that this one is not among yet (rollout.go);
	// it wraps ErrUpToDate.
	ErrRollout = fmt.Errorf("%w for this install yet", ErrUpToDate)
	// ErrNoBuild: the feed's newer version has no build for this
	// install's platform and flavour (Platform); it wraps ErrUpToDate:
	// nothing is offered, and the words say why.
	ErrNoBuild = fmt.Errorf("%w for this install", ErrUpToDate)
	// ErrManaged: a package manager owns this copy; it is never replaced.
	ErrManaged = errors.New("package-managed install")
	// ErrSmoke: the new binary did not answer `version --json` with the
	// manifest's version.
	ErrSmoke = errors.New("smoke test failed")
	// ErrSwap: the new binary could not be put in place (the old one was
	// restored). It is of no control kind: it travels as an internal error.
	ErrSwap = errors.New("swap failed")
)

// Reason names the kind of err in one word ("" for nil, "error" when no
// sentinel matches).
func Reason(err error) string {
	if err == nil {
		return ""
	}
	for _, r := range reasons {
		if errors.Is(err, r.err) {
			return r.word
		}
	}
	return "error"
}

var reasons = []struct {
	err  error
	word string
}{
	{ErrDisabled, "disabled"},
	{ErrNoBuild, "no-build"},
	{ErrRollout, "rollout"},
	{ErrUpToDate, "up-to-date"},
	{ErrManaged, "package-managed"},
	{ErrSignature, "signature"},
	{ErrStale, "stale"},
	{ErrChecksum, "checksum"},
	{ErrDiskFull, "disk-full"},
	{ErrInsecure, "insecure-url"},
	{ErrSmoke, "smoke-test"},
	{ErrSwap, "swap"},
	{ErrFeed, "feed"},
	{ErrOffline, "offline"},
}

// staleError is an ErrStale said as the sentence the user reads ("the
// update feed's signature expired on ..."), the sentinel's word left out.
type staleError string

func (e staleError) Error() string        { return string(e) }
func (e staleError) Is(target error) bool { return target == ErrStale }

// classifyNet wraps a transport error as ErrOffline: DNS, refused, reset,
// timeouts. Anything else (a context the caller cancelled) stays as it is.
func classifyNet(err error) error {
	var ne net.Error
	var ue *url.Error
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return errors.Join(ErrOffline, err)
	case errors.As(err, &ne), errors.As(err, &ue):
		return errors.Join(ErrOffline, err)
	}
	return err
}

// classifyWrite wraps "no space" and "quota exceeded" as ErrDiskFull.
func classifyWrite(err error) error {
	if err != nil && isDiskFull(err) {
		return errors.Join(ErrDiskFull, err)
	}
	return err
}
