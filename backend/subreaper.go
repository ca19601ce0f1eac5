package backend

import (
	"context"
	"log/slog"
	"sync"

	"hermes-desktop/backend/reclaim"
	"hermes-desktop/platform/proc"
)

// subreaper is the launcher taking in what is reparented to it (it is a
// child subreaper where the OS has them): the reclaimer finishes off what
// our backends leave behind, and proc.CollectOrphans waits for everything
// else nobody here waits for. start runs both loops; stop ends them, the
// reclaimer first.
type subreaper struct {
	reclaimer *reclaim.Reclaimer // set in Open, never changed

	mu            sync.Mutex // guards every field below: start sets them, a handoff's commit and Shutdown end them
	reclaimCancel context.CancelFunc
	reclaimDone   chan struct{} // closed once reclaimer.Run returned
	orphansCancel context.CancelFunc
	orphansDone   chan struct{} // closed once proc.CollectOrphans returned
}

// start makes the launcher a subreaper and starts both loops, each in a
// goroutine the subreaper owns (ended and awaited by stop).
func (s *subreaper) start(logger *slog.Logger) {
	if err := proc.SetChildSubreaper(true); err != nil {
		logger.Debug("launcher is not a subreaper", "err", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	orphansCtx, orphansCancel := context.WithCancel(context.Background())
	orphansDone := make(chan struct{})
	s.orphansCancel, s.orphansDone = orphansCancel, orphansDone
	go func() {
		defer close(orphansDone)
		proc.CollectOrphans(orphansCtx, logger)
	}()
	reclaimCtx, reclaimCancel := context.WithCancel(context.Background())
	reclaimDone := make(chan struct{})
	s.reclaimCancel, s.reclaimDone = reclaimCancel, reclaimDone
	go func() {
		defer close(reclaimDone)
		s.reclaimer.Run(reclaimCtx)
	}()
}

// stopReclaimer ends the reclaimer without waiting (a handoff's commit:
// the orphans are the successor's to finish off).
func (s *subreaper) stopReclaimer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reclaimCancel != nil {
		s.reclaimCancel()
	}
}

// stop ends both loops and waits for them: the reclaimer first (it
// finishes off the orphans it holds), then the orphan reaper, which reaps
// what the reclaimer stopped.
func (s *subreaper) stop() {
	s.mu.Lock()
	reclaimCancel, reclaimDone := s.reclaimCancel, s.reclaimDone
	orphansCancel, orphansDone := s.orphansCancel, s.orphansDone
	s.mu.Unlock()
	if reclaimCancel != nil {
		reclaimCancel()
		<-reclaimDone
		_ = proc.SetChildSubreaper(false)
	}
	if orphansCancel != nil {
		orphansCancel()
		<-orphansDone
	}
}
