package selfupdate

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"hermes-desktop/backend/update"
)

// statusBoard is the self-update's status (update.Info), written by the
// check, the download, the apply and the feed switch, read by status at
// any time, and announced through Launcher.PublishStatus.
type statusBoard struct {
	publish func() // Launcher.PublishStatus
	log     *slog.Logger

	mu   sync.Mutex // guards info and probationUntil
	info update.Info
	// probationUntil is set in Start when this instance is a new version
	// in its health window.
	probationUntil time.Time
}

// set changes the status under the lock, without announcing it.
func (s *statusBoard) set(fn func(*update.Info)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(&s.info)
}

// change changes the status and announces it.
func (s *statusBoard) change(fn func(*update.Info)) {
	s.set(fn)
	s.publish()
}

// fail records a failed step in the status, announces and logs it, and
// returns err.
func (s *statusBoard) fail(err error) error {
	s.change(func(i *update.Info) { i.State, i.Error, i.Reason = update.StateFailed, err.Error(), update.Reason(err) })
	s.log.Warn("update failed", "err", err)
	return err
}

// snapshot is a copy of the status, with the health window this instance
// is in, if any.
func (s *statusBoard) snapshot() *update.Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := s.info
	if until := s.probationUntil; time.Now().Before(until) {
		info.ProbationUntil = &until
	}
	return &info
}

// busyCheck answers a check while a download or an apply runs.
func (s *statusBoard) busyCheck() update.Check {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.info
	return update.Check{Current: i.Current, Latest: i.Latest, Notes: i.Notes, Command: i.Command,
		Available: i.State == update.StateDownloading || i.State == update.StateReady || i.State == update.StateApplying,
		Reason:    "busy", Message: fmt.Sprintf("an update is %s", i.State)}
}

// probation is the end of the health window this instance is in (zero
// when none).
func (s *statusBoard) probation() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.probationUntil
}

// setProbation records that this instance is in a health window until.
func (s *statusBoard) setProbation(until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.probationUntil = until
}
