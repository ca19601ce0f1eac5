package proc

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"time"

	"golang.org/x/sys/unix"
)

// ForeignWait is how long a zombie child nobody registered is left to
// whoever may have started it outside this package's registry (GLib's
// spawn of WebKit's helper processes, a library's exec.Cmd.Run): those wait
// for their children at once, so a zombie still there after ForeignWait is
// nobody's, and is collected.
const ForeignWait = time.Second

// CollectOrphans is the one loop that collects, for this process, every child
// nobody here waits for: on a child subreaper, the orphans of its whole
// subtree (a backend whose shim died, what xdg-open leaves behind), as tini
// does. Children registered as owned (StartChild) are left to
// their owners, who keep their exit status. It runs until ctx ends; run one
// per process (passes are serialized, so a second loop only adds cost).
// Passes run on SIGCHLD and WakeCollector, so it costs nothing at rest.
func CollectOrphans(ctx context.Context, log *slog.Logger) {
	sigchld := make(chan os.Signal, 1)
	signal.Notify(sigchld, unix.SIGCHLD)
	defer signal.Stop(sigchld)
	r := &orphanCollector{self: os.Getpid(), log: log, seen: map[zombie]time.Time{}}
	t := time.NewTimer(0) // a first pass at start: orphans may be waiting already
	defer t.Stop()
	var watchUntil time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-sigchld:
		case <-collectorWake:
			watchUntil = time.Now().Add(CollectorWatch)
		case <-t.C:
		}
		t.Stop()
		now := time.Now()
		next := r.pass(now)
		if now.Before(watchUntil) && (next == 0 || next > watchPass) {
			next = watchPass
		}
		if next > 0 {
			t.Reset(next)
		}
	}
}

// watchPass is the pace of passes while watching (WakeCollector).
const watchPass = time.Second

// orphanCollector is CollectOrphans' state, owned by its goroutine.
type orphanCollector struct {
	self int
	log  *slog.Logger
	seen map[zombie]time.Time // unregistered zombies, and when first seen
}

// zombie is a zombie child by PID and start time.
type zombie struct {
	pid   int
	ticks uint64
}

// pass collects the zombie children due, and returns when to look again (0:
// only on the next SIGCHLD).
func (r *orphanCollector) pass(now time.Time) (next time.Duration) {
	owned.mu.Lock()
	defer owned.mu.Unlock()
	kids, ok := childrenOf(r.self)
	if !ok {
		kids = r.scanChildren()
	}
	present := make(map[zombie]bool, len(r.seen))
	for _, pid := range kids {
		if isOwned(pid) {
			continue
		}
		f, err := readStat(pid)
		if err != nil || f.ppid != r.self || f.state != 'Z' {
			continue
		}
		z := zombie{pid, f.startTicks}
		first, ok := r.seen[z]
		if !ok {
			first = now
			r.seen[z] = now
		}
		if wait := ForeignWait - now.Sub(first); wait > 0 {
			present[z] = true
			if next == 0 || wait < next {
				next = wait
			}
			continue
		}
		r.collect(z, f.comm)
	}
	for z := range r.seen {
		if !present[z] {
			delete(r.seen, z) // collected, by us or by whoever started it
		}
	}
	return next
}

// scanChildren lists our children from the whole process table: the
// fallback when the children lists are not there.
func (r *orphanCollector) scanChildren() []int {
	pids, err := listPIDs()
	if err != nil {
		return nil
	}
	var kids []int
	for _, pid := range pids {
		if f, err := readStat(pid); err == nil && f.ppid == r.self {
			kids = append(kids, pid)
		}
	}
	return kids
}

// collect waits for the zombie z and nothing else: through a pidfd opened
// before its identity is checked again, so a PID reused in between (the
// zombie collected by someone else, the number handed out again) is never
// waited for; wait4 on PID only where pidfds are missing. Never wait(-1),
// which would take the status of a child its owner waits for.
func (r *orphanCollector) collect(z zombie, comm string) {
	var status unix.WaitStatus
	fd, err := unix.PidfdOpen(z.pid, 0)
	switch {
	case err == nil:
		defer unix.Close(fd)
		if f, err := readStat(z.pid); err != nil || f.startTicks != z.ticks || f.ppid != r.self || f.state != 'Z' {
			return
		}
		var info unix.Siginfo
		if err := unix.Waitid(unix.P_PIDFD, fd, &info, unix.WEXITED|unix.WNOHANG, nil); err != nil {
			return
		}
	case errors.Is(err, unix.ENOSYS):
		if _, err := unix.Wait4(z.pid, &status, unix.WNOHANG, nil); err != nil {
			return
		}
	default:
		return
	}
	if r.log != nil {
		r.log.Info("collected an orphan", "pid", z.pid, "comm", comm)
	}
}
