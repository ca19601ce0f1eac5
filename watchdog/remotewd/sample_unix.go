//go:build unix

package remotewd

import (
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
	"hermes-desktop/platform/sampling"
)

// sampler samples the backend's tree every period and sends each sample
// to the app (TagSample), and carries out the app's kill lines, only on a
// process of that tree. One goroutine (loop) does both, so nothing here is
// shared: follow hands it kill lines through a channel.
//
// The tree is the members of the backend's cgroup when it has one, else
// the watchdog's descendants: on Linux the watchdog is a subreaper, so an
// orphan of the backend's tree is its child, not init's.
//
// At rest a sample reads, per process, its stat, statm and fd directory;
// a command line only when a process is new, changes its name, or once a
// minute; and the backend's open-file limit.
type sampler struct {
	backend proc.Identity
	root    int // the process whose descendants are the tree: the watchdog
	aside   int // a child of the watchdog that is not the backend's (the namespace's relay), 0: none
	tree    *cgroup.Cgroup
	grace   time.Duration
	out     *channelWriter
	log     *slog.Logger

	argv   map[int]seenArgv // by PID, for the processes of the last sample
	ending []ending         // processes a kill line stopped, SIGKILLed past the grace

	kills chan string // kill lines' arguments, from follow
	stop  chan struct{}
	done  chan struct{}
}

type ending struct {
	stop *proc.Stopper
	due  time.Time // its grace is over
}

type seenArgv struct {
	start, comm string
	argv        []string
	read        time.Time
}

// argvMaxAge is how long a command line read is trusted while its process
// keeps its identity and name.
const argvMaxAge = time.Minute

// startSampling starts sampling backend's tree every period (0: never,
// but kill lines are still carried out) until close. aside (0: none) is a
// process of the watchdog's that is not part of the tree.
func startSampling(backend proc.Identity, aside int, tree *cgroup.Cgroup, period, grace time.Duration, out *channelWriter, log *slog.Logger) *sampler {
	s := newSampler(backend, os.Getpid(), tree, grace, out, log)
	s.aside = aside
	go s.loop(period)
	return s
}

func newSampler(backend proc.Identity, root int, tree *cgroup.Cgroup, grace time.Duration, out *channelWriter, log *slog.Logger) *sampler {
	return &sampler{
		backend: backend, root: root, tree: tree, grace: grace, out: out, log: log,
		argv: map[int]seenArgv{}, kills: make(chan string, 16), stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// request hands a kill line's argument to the loop; one that does not fit
// (a flood) is refused at once.
func (s *sampler) request(arg string) {
	if s == nil {
		return
	}
	select {
	case s.kills <- arg:
	default:
		s.out.sendJSON(TagKilled, RemoteKilled{Why: "refused: too many kill requests at once"})
	}
}

// close ends the loop and waits for it.
func (s *sampler) close() {
	if s == nil {
		return
	}
	close(s.stop)
	<-s.done
}

func (s *sampler) loop(period time.Duration) {
	defer close(s.done)
	var tick <-chan time.Time
	if period > 0 {
		t := sampling.NewTicker(period)
		defer t.Stop()
		tick = t.C
		s.send() // the first sample at once: the page shows the tree as soon as the backend runs
	}
	escalate := time.NewTimer(time.Hour)
	escalate.Stop()
	defer escalate.Stop()
	for {
		select {
		case <-tick:
			s.send()
		case arg := <-s.kills:
			if s.kill(arg) && len(s.ending) == 1 {
				escalate.Reset(time.Until(s.ending[0].due))
			}
		case now := <-escalate.C:
			if next := s.escalate(now); !next.IsZero() {
				escalate.Reset(next.Sub(now))
			}
		case <-s.stop:
			return
		}
	}
}

// send samples the tree and sends it; nothing when the backend is gone
// (its exit line follows).
func (s *sampler) send() {
	smp, err := s.sample()
	if err != nil {
		return
	}
	s.out.sendJSON(TagSample, smp)
}

// members lists the tree: the backend first, then the rest, never the
// watchdog itself.
func (s *sampler) members() ([]proc.Process, error) {
	root, err := proc.Stat(s.backend.PID)
	if err != nil || root.Start != s.backend.Start {
		return nil, fmt.Errorf("remotewd: the backend %s is gone", s.backend)
	}
	var rest []proc.Process
	if pids, ok := s.cgroupMembers(); ok {
		for _, pid := range pids {
			if p, err := proc.Stat(pid); err == nil && !p.Zombie && pid != s.backend.PID && pid != s.root && pid != s.aside {
				rest = append(rest, p)
			}
		}
	} else if rest, err = proc.DescendantsOf(s.root); err != nil {
		return nil, fmt.Errorf("remotewd: the tree of %d: %w", s.root, err)
	}
	out := []proc.Process{root}
	for _, p := range rest {
		if p.PID != s.backend.PID && !p.Zombie && p.PID != s.aside {
			out = append(out, p)
		}
	}
	return out, nil
}

func (s *sampler) cgroupMembers() ([]int, bool) {
	if s.tree == nil {
		return nil, false
	}
	pids, err := s.tree.Members()
	return pids, err == nil
}

// sample reads the tree once.
func (s *sampler) sample() (RemoteSample, error) {
	ps, err := s.members()
	if err != nil {
		return RemoteSample{}, err
	}
	now := time.Now()
	smp := RemoteSample{At: now, Processes: make([]RemoteProc, 0, len(ps))}
	seen := make(map[int]seenArgv, len(ps))
	for _, p := range ps {
		rp := RemoteProc{PID: p.PID, PPID: p.PPID, Start: p.Start, Started: p.Started, Argv: s.argvOf(p, now, seen)}
		if u, err := sampling.ReadUsage(p.PID); err == nil {
			rp.RSS, rp.FDs = u.RSS, u.FDs
		}
		smp.Processes = append(smp.Processes, rp)
	}
	s.argv = seen // what is gone is forgotten
	smp.NofileSoft = s.nofileSoft()
	return smp, nil
}

// nofileSoft is the backend's soft open-file limit (0: unlimited or
// unknown), read at every sample: one small file, and a backend that
// lowers its limit once it runs (a shell's ulimit before its exec) must
// not be judged on the limit it started with.
func (s *sampler) nofileSoft() int64 {
	n, err := sampling.NofileSoft(s.backend.PID)
	if err != nil {
		return 0
	}
	return int64(n)
}

// argvOf returns p's command line, read again only when it may have
// changed, and notes it in seen.
func (s *sampler) argvOf(p proc.Process, now time.Time, seen map[int]seenArgv) []string {
	a, ok := s.argv[p.PID]
	if !ok || a.start != p.Start || a.comm != p.Comm || now.Sub(a.read) >= argvMaxAge {
		a = seenArgv{start: p.Start, comm: p.Comm, read: now}
		if a.argv, _ = proc.Cmdline(p.PID); a.argv == nil {
			a.read = time.Time{} // none to be had (exiting, mid-exec): ask again next time
		}
	}
	seen[p.PID] = a
	return a.argv
}

// kill carries out one kill line: SIGTERM to the process it names when,
// read now, a process of the tree has that PID and start time and is not
// the backend itself; refused otherwise (fail closed). It answers with
// TagKilled, and reports whether a process was asked to stop.
func (s *sampler) kill(arg string) bool {
	id, err := ParseKill(arg)
	ans := RemoteKilled{PID: id.PID, Start: id.Start}
	defer func() { s.out.sendJSON(TagKilled, ans) }()
	if err != nil {
		ans.Why = "refused: " + err.Error()
		return false
	}
	if id.PID == s.backend.PID {
		ans.Why = "refused: it is the backend itself (a stop ends the run)"
		return false
	}
	ps, err := s.members()
	if err != nil {
		ans.Why = "refused: " + err.Error()
		return false
	}
	if !slices.ContainsFunc(ps[1:], func(p proc.Process) bool { return p.Identity().Same(id) }) {
		ans.Why = "refused: no process of the backend's tree has that PID and start time"
		return false
	}
	stop, err := proc.Terminate(proc.Identity{PID: id.PID, Start: id.Start, BootID: proc.BootID()}, s.grace, time.Now())
	if err != nil {
		ans.Why = "failed: " + err.Error()
		return false
	}
	s.ending = append(s.ending, ending{stop: stop, due: time.Now().Add(s.grace + 10*time.Millisecond)})
	s.log.Info("stopped a process of the tree at the app's request", "pid", id.PID)
	ans.Done, ans.Why = true, fmt.Sprintf("sent SIGTERM; SIGKILL after %s if it still runs", s.grace)
	return true
}

// escalate SIGKILLs what outlived its grace, and returns when the next
// grace is over (zero: none left).
func (s *sampler) escalate(now time.Time) (next time.Time) {
	kept := s.ending[:0]
	for _, e := range s.ending {
		if now.Before(e.due) {
			kept = append(kept, e)
			if next.IsZero() || e.due.Before(next) {
				next = e.due
			}
			continue
		}
		e.stop.Escalate(now) // re-validates its identity: a reused PID is never hit
	}
	s.ending = kept
	return next
}
