package backend

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"hermes-desktop/internal/proc"
)

// LeakGuard configures the tree sampler and what it does about leaks: the
// slow ones that sank the Electron desktop (53 duplicate MCP children,
// descriptors running out at a 256 limit). Zero values take the defaults.
type LeakGuard struct {
	// SampleInterval is how often each backend's tree is sampled; 0 means
	// five seconds, negative turns sampling (and every policy) off.
	SampleInterval time.Duration
	// DuplicateWarn warns when more than this many descendants share one
	// command line; 0 means 3.
	DuplicateWarn int
	// MaxDuplicateChildren, when positive, keeps the newest N descendants
	// per identical command line and stops the older ones (SIGTERM, grace,
	// SIGKILL). 0 means off.
	MaxDuplicateChildren int
	// RestartOnFDPressure restarts the backend when a process of its tree
	// passes 95% of its open-file limit, before it hits EMFILE.
	RestartOnFDPressure bool
	// RSSGrowthWarn warns when the tree's memory grows by more than this
	// many bytes within RSSWindow; 0 means 512 MiB in 10 minutes.
	RSSGrowthWarn int64
	RSSWindow     time.Duration
	// NofileSoftLimit is the floor for the backends' soft RLIMIT_NOFILE:
	// raised to it (never lowered, clamped to the hard limit) before the
	// first spawn. 0 means 4096, as Hermes does; negative turns it off.
	NofileSoftLimit int
}

// Leak guard thresholds.
const (
	DefaultSampleInterval = 5 * time.Second
	defaultDuplicateWarn  = 3
	defaultRSSGrowthWarn  = 512 << 20
	defaultRSSWindow      = 10 * time.Minute
	fdWarnRatio           = 0.80
	fdRestartRatio        = 0.95
)

func (g *LeakGuard) applyDefaults() {
	if g.SampleInterval == 0 {
		g.SampleInterval = DefaultSampleInterval
	}
	if g.DuplicateWarn == 0 {
		g.DuplicateWarn = defaultDuplicateWarn
	}
	if g.RSSGrowthWarn == 0 {
		g.RSSGrowthWarn = defaultRSSGrowthWarn
	}
	if g.RSSWindow == 0 {
		g.RSSWindow = defaultRSSWindow
	}
	if g.NofileSoftLimit == 0 {
		g.NofileSoftLimit = DefaultNofileFloor
	}
}

// guard is one backend's leak state. Its supervisor's goroutine owns it.
type guard struct {
	cfg    LeakGuard
	log    *slog.Logger
	out    *backendLog
	rss    []rssPoint
	active map[string]bool      // warnings of the current episodes
	ending map[int]*endingChild // duplicates being stopped
}

type rssPoint struct {
	at  time.Time
	rss int64
}

type endingChild struct {
	id       proc.Identity
	deadline time.Time // SIGKILL after this
	killed   bool
}

func newGuard(cfg LeakGuard, log *slog.Logger, out *backendLog) *guard {
	return &guard{cfg: cfg, log: log, out: out, active: map[string]bool{}, ending: map[int]*endingChild{}}
}

// reset forgets everything about the previous instance.
func (g *guard) reset() {
	g.rss = nil
	clear(g.active)
	clear(g.ending)
}

// check applies the warnings and policies to a sample and returns why the
// backend must be restarted ("" when it need not be). It stops surplus
// duplicates itself; the sample is updated to show what remains.
func (g *guard) check(s *TreeSample, grace time.Duration) (restart string) {
	now := s.SampledAt
	g.finishEnding(now)
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
func (g *guard) fdPressure(s *TreeSample) ([]TreeWarning, string) {
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

func (g *guard) duplicateWarnings(s *TreeSample) []TreeWarning {
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

func (g *guard) rssGrowth(s *TreeSample, now time.Time) []TreeWarning {
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
			Message: fmt.Sprintf("the tree's memory grew by %d MiB within %v (now %d MiB)", grown>>20, g.cfg.RSSWindow, s.RSSBytes>>20)}}
	}
	return nil
}

// logEpisodes logs a warning when it starts, once, and notes when it ends.
func (g *guard) logEpisodes(warns []TreeWarning) {
	now := map[string]bool{}
	for _, w := range warns {
		now[w.key] = true
		if !g.active[w.key] {
			g.log.Warn("leak guard", "kind", w.Kind, "warning", w.Message)
			g.out.add("launcher", "warning: "+w.Message)
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
// group and sends the others SIGTERM. Targets come from the walk of the
// backend's own tree and the backend itself is never one, so nothing
// outside the tree, nor the backend or its shim, can be hit; each signal
// re-validates the identity seen in the sample.
func (g *guard) stopDuplicates(s *TreeSample, grace time.Duration, now time.Time) {
	keep := g.cfg.MaxDuplicateChildren
	stopped := map[int]bool{}
	for _, d := range s.Duplicates {
		if d.Count <= keep {
			continue
		}
		for _, pid := range d.PIDs[:d.Count-keep] { // oldest first
			p := findProc(s.Processes, pid)
			if p == nil || g.ending[pid] != nil {
				stopped[pid] = true
				continue
			}
			if err := proc.Signal(p.id, sigTerm); err != nil && !proc.IsGone(err) {
				g.log.Warn("leak guard: stop duplicate", "pid", pid, "err", err)
				continue
			}
			g.ending[pid] = &endingChild{id: p.id, deadline: now.Add(grace)}
			stopped[pid] = true
			g.out.add("launcher", fmt.Sprintf("stopped duplicate child %d (%s): more than %d copies", pid, shortArgv(p.Argv), keep))
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

// finishEnding SIGKILLs duplicates that outlived the grace period.
func (g *guard) finishEnding(now time.Time) {
	for pid, e := range g.ending {
		if running, err := proc.Running(e.id); err == nil && !running {
			delete(g.ending, pid)
			continue
		}
		if !e.killed && now.After(e.deadline) {
			e.killed = true
			_ = proc.Signal(e.id, sigKill)
		}
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
