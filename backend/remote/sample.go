package remote

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/run"
	"hermes-desktop/watchdog/remotewd"
)

// The remote tree, watched: the remote watchdog samples its backend's tree
// (remotewd "sample" lines) and the run keeps the latest; Sample (the
// run.Sampler ability) hands it to the Supervisor through this run's leak
// guard, as a local run hands its own, so Process tree, Memory and the
// leak guard's policies work for a remote backend too. A duplicate the
// guard stops is a kill line to the remote watchdog, which acts only
// inside its own tree; a restart is the Supervisor's, as for a local run.

// treeSamples is the latest sample the remote watchdog sent, and the leak
// guard that judges it.
type treeSamples struct {
	mu     sync.Mutex // guards last and at
	last   *remotewd.RemoteSample
	at     time.Time // when it came: this machine's clock, as a local sample's
	guard  *leakguard.Guard
	period time.Duration // the remote watchdog's --sample-every; 0 for none
}

// newTreeSamples is the sampling part of r, with a leak guard of cfg
// whose stops go to the remote watchdog.
func (r *Instance) newTreeSamples(cfg leakguard.Config, logger *slog.Logger) {
	cfg = cfg.WithDefaults()
	r.tree.period = max(cfg.SampleInterval, remotewd.MinSampleEvery)
	if cfg.SampleInterval < 0 {
		r.tree.period = 0 // sampling, and every policy, off
	}
	r.tree.guard = leakguard.New(cfg, logger, func(line string) { r.log.Add("launcher", "on "+r.host.Destination+": "+line) })
	r.tree.guard.StopWith(r.stopRemote)
}

// stopRemote asks the remote watchdog to stop p, a process of the tree it
// sampled (the leak guard's duplicate policy), for why; it answers with a
// "killed" line (killed).
func (r *Instance) stopRemote(p leakguard.TreeProc, _ time.Duration, why string) error {
	r.log.Add("launcher", fmt.Sprintf("asking the watchdog on %s to stop duplicate child remote:%d (%s): %s", r.host.Destination, p.PID, strings.Join(p.Argv, " "), why))
	r.line.send(remotewd.FormatKill(p.Identity()))
	return nil
}

// took takes a sample line.
func (t *treeSamples) took(payload string) {
	var s remotewd.RemoteSample
	if json.Unmarshal([]byte(payload), &s) != nil || len(s.Processes) == 0 {
		return
	}
	t.mu.Lock()
	t.last, t.at = &s, time.Now()
	t.mu.Unlock()
}

// killed says in the backend's log what the remote watchdog did with a
// kill line.
func (r *Instance) killed(payload string) {
	var k remotewd.RemoteKilled
	if json.Unmarshal([]byte(payload), &k) != nil {
		return
	}
	verb := "stopped"
	if !k.Done {
		verb = "did not stop"
	}
	r.log.Add("launcher", fmt.Sprintf("the watchdog on %s %s remote:%d: %s", r.host.Destination, verb, k.PID, k.Why))
}

// Sample is the latest sample of the remote tree, judged by this run's
// leak guard (which may ask the remote watchdog to stop duplicates). It
// returns leakguard.ErrGone before the first sample, after the run, and
// when sampling is off.
func (r *Instance) Sample() (run.Sampled, error) {
	select {
	case <-r.exited:
		return run.Sampled{}, fmt.Errorf("%w: the run on %s ended", leakguard.ErrGone, r.host.Destination)
	default:
	}
	r.tree.mu.Lock()
	s, at := r.tree.last, r.tree.at
	r.tree.mu.Unlock()
	if s == nil {
		return run.Sampled{}, fmt.Errorf("%w: no sample from %s yet", leakguard.ErrGone, r.host.Destination)
	}
	procs := make([]leakguard.TreeProc, 0, len(s.Processes))
	for _, p := range s.Processes {
		procs = append(procs, leakguard.NewTreeProc(p.Identity(), p.PPID, p.Argv, p.RSS, p.FDs, p.Started))
	}
	ts := leakguard.Assemble(at, s.NofileSoft, procs)
	restart := r.tree.guard.Check(ts, r.spec.Grace)
	return run.Sampled{Tree: ts, Restart: restart}, nil
}
