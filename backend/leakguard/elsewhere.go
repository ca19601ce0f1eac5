package leakguard

import (
	"time"

	"hermes-desktop/platform/proc"
)

// A tree sampled elsewhere: a remote host's watchdog samples its backend's
// tree and sends it; the guard judges it as it judges a local one, and the
// duplicates it stops are stopped there (StopWith).

// NewTreeProc is one process of a tree sampled elsewhere; id is its
// identity on that host (what a stop there re-validates).
func NewTreeProc(id proc.Identity, ppid int, argv []string, rss int64, fds int, started time.Time) TreeProc {
	return TreeProc{PID: id.PID, PPID: ppid, Argv: argv, RSSBytes: rss, FDs: fds, Started: started, id: id}
}

// Assemble is a sample of a tree sampled elsewhere at at: procs (the
// backend first) with their totals and duplicate groups, as Sample makes
// them.
func Assemble(at time.Time, nofileSoft int64, procs []TreeProc) *TreeSample {
	s := &TreeSample{SampledAt: at, NofileSoft: nofileSoft, Processes: procs, Duplicates: []DuplicateGroup{}, Warnings: []TreeWarning{}}
	for _, p := range procs {
		s.RSSBytes += p.RSSBytes
		s.FDs += p.FDs
	}
	s.Count = len(procs)
	if len(procs) > 1 {
		s.Duplicates = duplicateGroups(procs[1:])
	}
	return s
}

// StopWith makes the guard hand each duplicate it stops to stop, with why,
// instead of signalling it here: for a tree on another host, whose
// watchdog stops it there (SIGTERM, grace, SIGKILL) and only inside its
// own tree. stop says in the backend's log what it does. A process handed
// over is left out of the samples until it is gone from them.
func (g *Guard) StopWith(stop func(p TreeProc, grace time.Duration, why string) error) {
	g.stopElsewhere = stop
}

// forgetStopped forgets the processes handed to StopWith that are no
// longer in s.
func (g *Guard) forgetStopped(s *TreeSample) {
	for id := range g.asked {
		if findProc(s.Processes, id.PID) == nil {
			delete(g.asked, id)
		}
	}
}
