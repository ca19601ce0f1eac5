package leakguard

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"hermes-desktop/platform/human"
	"hermes-desktop/platform/proc"
)

// Guard is one backend's leak state: what its sampler remembers, the
// warnings of the current episodes, the recent memory totals and the
// duplicates being stopped. It is not safe for concurrent use; the
// backend's supervisor goroutine owns it.
type Guard struct {
	cfg     Config
	log     *slog.Logger
	notify  func(line string) // a line for the backend's own log
	sampler Sampler
	rss     []rssPoint
	active  map[string]bool       // warnings of the current episodes
	ending  map[int]*proc.Stopper // duplicates being stopped: asked to stop, killed after the grace
	// stopElsewhere, when set (StopWith), stops duplicates instead of a
	// signal here; asked are those it was handed.
	stopElsewhere func(p TreeProc, grace time.Duration, why string) error
	asked         map[proc.Identity]bool
}

type rssPoint struct {
	at  time.Time
	rss int64
}

// New returns a guard that applies cfg (defaults filled in here too). It
// logs to log and hands notify each line meant for the backend's own log:
// a warning when its episode starts, a duplicate it stopped. A nil log or
// notify drops what it would have been given.
func New(cfg Config, log *slog.Logger, notify func(line string)) *Guard {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if notify == nil {
		notify = func(string) {}
	}
	return &Guard{cfg: cfg.WithDefaults(), log: log, notify: notify, active: map[string]bool{}, ending: map[int]*proc.Stopper{}, asked: map[proc.Identity]bool{}}
}

// Reset forgets everything about the previous instance.
func (g *Guard) Reset() {
	g.sampler = Sampler{}
	g.rss = nil
	clear(g.active)
	clear(g.ending)
	clear(g.asked)
}

// Sample samples the backend's tree (Sampler.Sample) with what earlier
// samples of this instance read.
func (g *Guard) Sample(backend proc.Identity, cgroup string) (*TreeSample, error) {
	return g.sampler.Sample(backend, cgroup)
}

// Check applies the warnings and policies to a sample and returns why the
// backend must be restarted ("" when it need not be). It stops surplus
// duplicates itself, SIGKILLing them grace after SIGTERM (at a later Check);
// the sample is updated to show what remains, and its Warnings set.
func (g *Guard) Check(s *TreeSample, grace time.Duration) (restart string) {
	now := s.SampledAt
	g.finishEnding(now)
	g.forgetStopped(s)
	if g.cfg.MaxDuplicateChildren > 0 {
		g.stopDuplicates(s, grace, now)
	}
	warns := []TreeWarning{}
	w, restart := g.fdPressure(s)
	warns = append(warns, w...)
	warns = append(warns, g.duplicateWarnings(s)...)
	warns = append(warns, g.rssGrowth(s, now)...)
	g.logEpisodes(warns)
	s.Warnings = warns
	return restart
}

// fdPressure compares each process's descriptors with the backend's soft
// limit (which its children inherit).
func (g *Guard) fdPressure(s *TreeSample) ([]TreeWarning, string) {
	if s.NofileSoft <= 0 {
		return nil, ""
	}
	var warns []TreeWarning
	restart := ""
	for _, p := range s.Processes {
		ratio := float64(p.FDs) / float64(s.NofileSoft)
		if ratio < fdWarnRatio {
			continue
		}
		msg := fmt.Sprintf("pid %d (%s) has %d of %d files open (%.0f%%): it will fail with EMFILE soon",
			p.PID, shortArgv(p.Argv), p.FDs, s.NofileSoft, ratio*100)
		warns = append(warns, TreeWarning{Kind: WarnFDPressure, Message: msg, key: fmt.Sprintf("fd:%d", p.PID)})
		if g.cfg.RestartOnFDPressure && ratio >= fdRestartRatio && restart == "" {
			restart = "restarted before it ran out of file descriptors: " + msg
		}
	}
	return warns, restart
}

func (g *Guard) duplicateWarnings(s *TreeSample) []TreeWarning {
	var warns []TreeWarning
	for _, d := range s.Duplicates {
		if d.Count <= g.cfg.DuplicateWarn {
			continue
		}
		warns = append(warns, TreeWarning{Kind: WarnDuplicates,
			Message: fmt.Sprintf("%d copies of %q are running (more than %d): children are piling up", d.Count, shortArgv(d.Argv), g.cfg.DuplicateWarn),
			key:     "dup:" + strings.Join(d.Argv, "\x00")})
	}
	return warns
}

func (g *Guard) rssGrowth(s *TreeSample, now time.Time) []TreeWarning {
	g.rss = append(g.rss, rssPoint{at: now, rss: s.RSSBytes})
	kept := g.rss[:0]
	for _, p := range g.rss {
		if now.Sub(p.at) <= g.cfg.RSSWindow {
			kept = append(kept, p)
		}
	}
	g.rss = kept
	low := s.RSSBytes
	for _, p := range g.rss {
		low = min(low, p.rss)
	}
	if grown := s.RSSBytes - low; grown > g.cfg.RSSGrowthWarn {
		return []TreeWarning{{Kind: WarnRSSGrowth, key: "rss",
			Message: fmt.Sprintf("the tree's memory grew by %d MiB within %s (now %d MiB)", grown>>20, human.Duration(g.cfg.RSSWindow), s.RSSBytes>>20)}}
	}
	return nil
}

// logEpisodes logs a warning when it starts, once, and notes when it ends.
func (g *Guard) logEpisodes(warns []TreeWarning) {
	now := map[string]bool{}
	for _, w := range warns {
		now[w.key] = true
		if !g.active[w.key] {
			g.log.Warn("leak guard", "kind", w.Kind, "warning", w.Message)
			g.notify("warning: " + w.Message)
		}
	}
	for key := range g.active {
		if !now[key] {
			g.log.Info("leak guard: warning cleared", "key", strings.ReplaceAll(key, "\x00", " "))
		}
	}
	g.active = now
}

// stopDuplicates keeps the newest MaxDuplicateChildren of each duplicate
// group and sends the others SIGTERM (where the OS has one; see terminate).
// Targets come from the walk of the backend's own tree and the backend
// itself is never one, so nothing outside the tree, nor the backend or its
// shim, can be hit; each signal re-validates the identity seen in the
// sample.
func (g *Guard) stopDuplicates(s *TreeSample, grace time.Duration, now time.Time) {
	keep := g.cfg.MaxDuplicateChildren
	stopped := map[int]bool{}
	for _, d := range s.Duplicates {
		if d.Count <= keep {
			continue
		}
		for _, pid := range d.PIDs[:d.Count-keep] { // oldest first
			p := findProc(s.Processes, pid)
			if p == nil || g.ending[pid] != nil || g.asked[p.id] {
				stopped[pid] = true
				continue
			}
			why := fmt.Sprintf("more than %d copies", keep)
			if err := g.stopOne(p, grace, now, why); err != nil {
				g.log.Warn("leak guard: stop duplicate", "pid", pid, "err", err)
				continue
			}
			stopped[pid] = true
		}
	}
	if len(stopped) == 0 {
		return
	}
	var rest []TreeProc
	for _, p := range s.Processes {
		if !stopped[p.PID] {
			rest = append(rest, p)
		}
	}
	s.Processes, s.Count = rest, len(rest)
	s.Duplicates = duplicateGroups(rest[1:])
}

// stopOne stops one duplicate, for why: here, saying so in the backend's
// log, or through StopWith's function, which says what it does.
func (g *Guard) stopOne(p *TreeProc, grace time.Duration, now time.Time, why string) error {
	if g.stopElsewhere != nil {
		if err := g.stopElsewhere(*p, grace, why); err != nil {
			return err
		}
		g.asked[p.id] = true
		return nil
	}
	stop, err := proc.Terminate(p.id, grace, now)
	if err != nil {
		return err
	}
	g.ending[p.PID] = stop
	g.notify(fmt.Sprintf("stopped duplicate child %d (%s): %s", p.PID, shortArgv(p.Argv), why))
	return nil
}

// finishEnding SIGKILLs duplicates that outlived the grace period.
func (g *Guard) finishEnding(now time.Time) {
	for pid, stop := range g.ending {
		if running, err := proc.Running(stop.Identity()); err == nil && !running {
			delete(g.ending, pid)
			continue
		}
		stop.Escalate(now)
	}
}

func findProc(ps []TreeProc, pid int) *TreeProc {
	for i := range ps {
		if ps[i].PID == pid {
			return &ps[i]
		}
	}
	return nil
}

func shortArgv(argv []string) string {
	s := strings.Join(argv, " ")
	if len(s) > 60 {
		s = s[:59] + "…"
	}
	return s
}
