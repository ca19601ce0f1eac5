package leakguard

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"hermes-desktop/internal/proc"
)

// TreeProc is one process of a backend's tree, as the sampler saw it.
type TreeProc struct {
	PID      int       `json:"pid"`
	PPID     int       `json:"ppid"`
	Argv     []string  `json:"argv"`
	RSSBytes int64     `json:"rss_bytes"`
	FDs      int       `json:"fds"`
	Started  time.Time `json:"started"`

	id proc.Identity
}

// Identity is the process's identity as the sampler saw it: what a signal to
// it must re-validate, so that a reused PID is never hit.
func (p TreeProc) Identity() proc.Identity { return p.id }

// DuplicateGroup is a set of descendants with one command line.
type DuplicateGroup struct {
	Argv  []string `json:"argv"`
	Count int      `json:"count"`
	PIDs  []int    `json:"pids"`
}

// Warning kinds.
const (
	WarnFDPressure = "fd-pressure"
	WarnDuplicates = "duplicates"
	WarnRSSGrowth  = "rss-growth"
)

// TreeWarning is a leak the sampler sees building up.
type TreeWarning struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	key     string // one episode: logged when it starts, not at every sample
}

// TreeSample is one look at a backend and all its descendants.
type TreeSample struct {
	SampledAt time.Time `json:"sampled_at"`
	// Count, RSSBytes and FDs are totals over Processes (the backend
	// included).
	Count    int   `json:"count"`
	RSSBytes int64 `json:"rss_bytes"`
	FDs      int   `json:"fds"`
	// NofileSoft is the backend's soft RLIMIT_NOFILE (0: unlimited or
	// unknown).
	NofileSoft int64            `json:"nofile_soft"`
	Processes  []TreeProc       `json:"processes"`
	Duplicates []DuplicateGroup `json:"duplicates"`
	Warnings   []TreeWarning    `json:"warnings"`
}

// ErrGone means the backend to sample is gone (or its PID is another
// process now).
var ErrGone = errors.New("leakguard: backend is gone")

// Sample reads the backend and the rest of its tree, never the whole
// table: the members of its cgroup when it has one (cgroup, a path; ""
// for none), since a descendant that left the process tree by a double
// fork is still a member; else its descendants, walked through the
// kernel's children lists on Linux. The backend is the first of the
// sample's Processes.
func Sample(backend proc.Identity, cgroup string) (*TreeSample, error) {
	root, err := proc.Stat(backend.PID)
	if err != nil || root.Start != backend.Start {
		return nil, fmt.Errorf("%w: %s", ErrGone, backend)
	}
	desc, err := treeMembers(backend.PID, cgroup)
	if err != nil {
		return nil, fmt.Errorf("leakguard: descendants of %s: %w", backend, err)
	}
	// Empty lists, not null: the page and scripts read them as arrays.
	s := &TreeSample{SampledAt: time.Now(), Duplicates: []DuplicateGroup{}, Warnings: []TreeWarning{}}
	for _, p := range append([]proc.Process{root}, desc...) {
		tp := TreeProc{PID: p.PID, PPID: p.PPID, Started: p.Started, id: p.Identity()}
		tp.Argv, _ = proc.Cmdline(p.PID)
		if u, err := proc.ReadUsage(p.PID); err == nil {
			tp.RSSBytes, tp.FDs = u.RSS, u.FDs
		}
		s.Processes = append(s.Processes, tp)
		s.RSSBytes += tp.RSSBytes
		s.FDs += tp.FDs
	}
	s.Count = len(s.Processes)
	if n, err := proc.NofileSoft(backend.PID); err == nil {
		s.NofileSoft = int64(n)
	}
	s.Duplicates = duplicateGroups(s.Processes[1:])
	return s, nil
}

// treeMembers lists the backend's tree without the backend: its cgroup's
// members (from cgroup.procs) when it has a cgroup that can be read, else
// its descendants.
func treeMembers(backend int, cgroup string) ([]proc.Process, error) {
	if cgroup != "" {
		if cg, err := proc.OpenCgroup(cgroup); err == nil {
			if pids, err := cg.Members(); err == nil {
				var out []proc.Process
				for _, pid := range pids {
					if p, err := proc.Stat(pid); err == nil && pid != backend && !p.Zombie {
						out = append(out, p)
					}
				}
				return out, nil
			}
		}
	}
	return proc.DescendantsOf(backend)
}

// duplicateGroups groups processes with identical command lines (two or
// more), the biggest first; PIDs oldest first.
func duplicateGroups(procs []TreeProc) []DuplicateGroup {
	byArgv := map[string][]TreeProc{}
	var order []string
	groups := []DuplicateGroup{}
	for _, p := range procs {
		if len(p.Argv) == 0 {
			continue
		}
		key := strings.Join(p.Argv, "\x00")
		if byArgv[key] == nil {
			order = append(order, key)
		}
		byArgv[key] = append(byArgv[key], p)
	}
	for _, key := range order {
		ps := byArgv[key]
		if len(ps) < 2 {
			continue
		}
		sortOldestFirst(ps)
		g := DuplicateGroup{Argv: ps[0].Argv, Count: len(ps)}
		for _, p := range ps {
			g.PIDs = append(g.PIDs, p.PID)
		}
		groups = append(groups, g)
	}
	slices.SortStableFunc(groups, func(a, b DuplicateGroup) int { return b.Count - a.Count })
	return groups
}

func sortOldestFirst(ps []TreeProc) {
	slices.SortStableFunc(ps, func(a, b TreeProc) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return a.PID - b.PID
	})
}
