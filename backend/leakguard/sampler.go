package leakguard

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
	"hermes-desktop/platform/sampling"
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
	// SampledAt is when the tree was looked at.
	SampledAt time.Time `json:"sampled_at"`
	// ChangedAt is when the tree last looked different to a person (the
	// processes, the warnings, or the memory by more than a tenth): the
	// supervisor tells the window only then. Zero until it publishes it.
	ChangedAt time.Time `json:"changed_at"`
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

// How long a Sampler trusts what it read of a process that keeps its
// identity: a command line changes only through exec (which usually
// changes the name in stat too, and that is read at every sample) or an
// argv rewrite; an open-file limit only through setrlimit or prlimit.
const (
	argvMaxAge   = time.Minute
	nofileMaxAge = time.Minute
)

// Sampler samples one backend's tree again and again, and remembers what
// rarely changes so that a sample at rest reads as little as it can (it
// runs every few seconds all day): a process's command line is read when
// the process is first seen, when its name changes, and otherwise once a
// minute; the backend's open-file limit once a minute. Whatever the leak
// guard acts on is read fresh: the command lines of duplicates, and the
// limit once any process nears it. The zero value is ready to use; it is
// not safe for concurrent use.
type Sampler struct {
	argv   map[int]seenArgv // by PID, for the processes of the last sample
	nofile seenNofile
	// readArgv and readNofile read what is remembered; nil means
	// proc.Cmdline and nofileSoft (tests count the reads).
	readArgv   func(pid int) ([]string, error)
	readNofile func(pid int) (uint64, error)
}

type seenArgv struct {
	start, comm string
	argv        []string
	read        time.Time
}

type seenNofile struct {
	backend proc.Identity
	soft    int64
	read    time.Time
}

// Sample reads the backend and the rest of its tree once, with nothing
// remembered from earlier samples.
func Sample(backend proc.Identity, cgroup string) (*TreeSample, error) {
	return new(Sampler).Sample(backend, cgroup)
}

// Sample reads the backend and the rest of its tree, never the whole
// table: the members of its cgroup when it has one (cgroup, a path; ""
// for none), since a descendant that left the process tree by a double
// fork is still a member; else its descendants, walked through the
// kernel's children lists on Linux. The backend is the first of the
// sample's Processes.
func (sm *Sampler) Sample(backend proc.Identity, cgroup string) (*TreeSample, error) {
	root, err := proc.Stat(backend.PID)
	if err != nil || root.Start != backend.Start {
		return nil, fmt.Errorf("%w: %s", ErrGone, backend)
	}
	desc, err := treeMembers(backend.PID, cgroup)
	if err != nil {
		return nil, fmt.Errorf("leakguard: descendants of %s: %w", backend, err)
	}
	now := time.Now()
	// Empty lists, not null: the page and scripts read them as arrays.
	s := &TreeSample{SampledAt: now, Duplicates: []DuplicateGroup{}, Warnings: []TreeWarning{}}
	seen := make(map[int]seenArgv, len(desc)+1)
	for _, p := range append([]proc.Process{root}, desc...) {
		tp := TreeProc{PID: p.PID, PPID: p.PPID, Started: p.Started, id: p.Identity()}
		tp.Argv = sm.argvOf(p, now, seen)
		if u, err := sampling.ReadUsage(p.PID); err == nil {
			tp.RSSBytes, tp.FDs = u.RSS, u.FDs
		}
		s.Processes = append(s.Processes, tp)
		s.RSSBytes += tp.RSSBytes
		s.FDs += tp.FDs
	}
	sm.argv = seen // what is gone is forgotten
	s.Count = len(s.Processes)
	s.NofileSoft = sm.nofileOf(backend, now, s.Processes)
	s.Duplicates = duplicateGroups(s.Processes[1:])
	if len(s.Duplicates) > 0 {
		sm.rereadDuplicates(s, now)
	}
	return s, nil
}

// argvOf returns p's command line, read again only when it may have
// changed, and notes it in seen.
func (sm *Sampler) argvOf(p proc.Process, now time.Time, seen map[int]seenArgv) []string {
	a, ok := sm.argv[p.PID]
	if !ok || a.start != p.Start || a.comm != p.Comm || now.Sub(a.read) >= argvMaxAge {
		a = seenArgv{start: p.Start, comm: p.Comm, read: now}
		if a.argv = sm.cmdline(p.PID); a.argv == nil {
			a.read = time.Time{} // none to be had (exiting, or mid-exec): ask again next time
		}
	}
	seen[p.PID] = a
	return a.argv
}

func (sm *Sampler) cmdline(pid int) []string {
	read := sm.readArgv
	if read == nil {
		read = proc.Cmdline
	}
	argv, _ := read(pid)
	return argv
}

// rereadDuplicates reads the command lines of the processes that share one
// again, so that duplicates are judged (and perhaps stopped) on what they
// run now, not on what they ran before an exec.
func (sm *Sampler) rereadDuplicates(s *TreeSample, now time.Time) {
	stale := false
	for _, d := range s.Duplicates {
		for _, pid := range d.PIDs {
			a, ok := sm.argv[pid]
			if !ok || a.read.Equal(now) {
				continue // read in this very sample
			}
			a.argv, a.read = sm.cmdline(pid), now
			sm.argv[pid] = a
			if p := findProc(s.Processes, pid); p != nil && !slices.Equal(p.Argv, a.argv) {
				p.Argv, stale = a.argv, true
			}
		}
	}
	if stale {
		s.Duplicates = duplicateGroups(s.Processes[1:])
	}
}

// nofileOf returns the backend's soft open-file limit (0: unlimited or
// unknown), read again once a minute, or at once when a process of the
// tree nears the limit remembered: the fd-pressure warning and restart
// must not act on a limit the backend has since raised.
func (sm *Sampler) nofileOf(backend proc.Identity, now time.Time, ps []TreeProc) int64 {
	n := sm.nofile
	fresh := n.backend == backend && now.Sub(n.read) < nofileMaxAge
	if fresh && n.soft > 0 {
		for _, p := range ps {
			if float64(p.FDs) >= fdWarnRatio*float64(n.soft) {
				fresh = false
				break
			}
		}
	}
	if !fresh {
		n = seenNofile{backend: backend, read: now}
		read := sm.readNofile
		if read == nil {
			read = nofileSoft
		}
		if soft, err := read(backend.PID); err == nil {
			n.soft = int64(soft)
		} else {
			n.read = time.Time{} // unknown this time: ask again next time
		}
		sm.nofile = n
	}
	return n.soft
}

// treeMembers lists the backend's tree without the backend: its cgroup's
// members (from cgroup.procs) when it has a cgroup that can be read, else
// its descendants.
func treeMembers(backend int, group string) ([]proc.Process, error) {
	if group != "" {
		if cg, err := cgroup.Open(group); err == nil {
			if pids, err := cg.Members(); err == nil {
				var out []proc.Process
				for _, pid := range pids {
					if pid == backend {
						continue // read already
					}
					if p, err := proc.Stat(pid); err == nil && !p.Zombie {
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
