package selfupdate

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/platform/proc"
)

// Launcher is what the Updater needs of the launcher it updates, and all it
// sees of it. The launcher implements it; the Updater never reaches into
// the launcher's locks, socket or supervisors.
type Launcher interface {
	// HandOff hands the instance over to the binary args.To. A non-nil
	// Successor means the successor owns the backends, with or without an
	// error (one met after its commit); nil means this instance is still
	// in charge with its backends.
	HandOff(ctx context.Context, args protocol.HandoffArgs) (Successor, error)
	// HandedOver tells the launcher a successor owns everything: it exits
	// without teardown. For callers with no answer to write first.
	HandedOver()
	// Busy says why the instance cannot be handed over now (a handoff is
	// under way, a backend is starting or restarting), as an error of kind
	// errkind.ErrBusy; nil when it can.
	Busy() error
	// CrashCounts is each backend's crash count, the baseline against
	// which the health window tells a crash loop.
	CrashCounts() map[string]int
	// StartFresh starts exe as a new instance that boots normally (it
	// waits for the state dir, reaps, starts the backends), after a
	// rollback left none running, and returns once it serves.
	StartFresh(ctx context.Context, exe string) (Successor, error)
	// PublishStatus announces that the status changed.
	PublishStatus()
	// AddNotice records something the user should see once in status.
	AddNotice(msg string)
}

// Successor is the new instance a handoff started. It is our child until
// we exit: its PID cannot be reused before we collect it.
type Successor interface {
	// PID is its process ID.
	PID() int
	// Exited is closed once it has been collected.
	Exited() <-chan struct{}
	// ExitState says how it ended, once Exited is closed.
	ExitState() *os.ProcessState
	// Stop asks it to tear down what it started (SIGTERM), and kills it
	// after a grace.
	Stop()
}

// Config is what the Updater is built from: the launcher's configuration,
// its defaults filled in.
type Config struct {
	// StateDir is the instance's state directory; the updates live in
	// <StateDir>/updates.
	StateDir string
	// Exe is our own executable: what an update replaces, and what the
	// exe watch watches for a package upgrade ("" watches nothing).
	Exe string
	// Self is this process, recorded as the health window's watcher.
	Self proc.Identity
	// Version is the running version.
	Version string
	// Keys are the trusted minisign public keys; none turns updates off.
	Keys []string
	// Feed is the feed's manifest URL; "" turns updates off.
	Feed string
	// Automatic applies a downloaded update when the backends are idle.
	Automatic bool
	// FeedFrom and AutomaticFrom name the flag or environment variable
	// that set Feed and Automatic; such a value wins over saved settings.
	// "" means the value is the settings' (or the default).
	FeedFrom, AutomaticFrom string
	// HealthWindow is how long a new version must stay up before it is
	// kept.
	HealthWindow time.Duration
	// CheckInterval is the time between automatic checks (the launcher
	// fills in its default for 0); negative turns them off.
	CheckInterval time.Duration
	// Backends are the backends' names, for the user's rollback message.
	Backends []string
	// Logger receives the self-update's log; it must not be nil.
	Logger *slog.Logger
	// Announce receives one line per user-visible event; it must not be
	// nil.
	Announce io.Writer
}
