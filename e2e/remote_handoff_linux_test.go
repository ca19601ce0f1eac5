package e2e

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/waitfor"
)

// prober GETs url in a loop until stop, counting failures and keeping the
// slowest answer.
type prober struct {
	n, failed atomic.Int32
	mu        sync.Mutex
	slowest   time.Duration // guarded by mu
	stop      chan struct{}
	done      sync.WaitGroup
}

func probe(url string) *prober {
	p := &prober{stop: make(chan struct{})}
	client := &http.Client{Timeout: 20 * time.Second}
	p.done.Add(1)
	go func() { // ends at stop
		defer p.done.Done()
		for {
			select {
			case <-p.stop:
				return
			default:
			}
			start := time.Now()
			resp, err := client.Get(url)
			took := time.Since(start)
			p.n.Add(1)
			if err != nil || resp.StatusCode != 200 {
				p.failed.Add(1)
			}
			if resp != nil {
				resp.Body.Close()
			}
			p.mu.Lock()
			p.slowest = max(p.slowest, took)
			p.mu.Unlock()
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return p
}

func (p *prober) finish() (n, failed int, slowest time.Duration) {
	close(p.stop)
	p.done.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return int(p.n.Load()), int(p.failed.Load()), p.slowest
}

// TestRemoteBackendSurvivesAnUpdate: an adopt handoff (an update) hands
// the remote backend over: the successor claims it over its own session
// (the same remote PID and watchdog), serves the same local port from the
// socket the predecessor passed, and a probe loop through that port sees
// no failure throughout.
func TestRemoteBackendSurvivesAnUpdate(t *testing.T) {
	a := startRemoteApp(t, "30s", settings.Backend{Name: "far", Kind: settings.KindDashboard})
	b := a.remoteBackend(t, "far", 60*time.Second)
	p := probe(b.PageURL)
	waitfor.Try(2*time.Second, func() bool { return p.n.Load() >= 20 })
	old := a.l.Cmd.Process.Pid
	out, errOut, code := a.l.CLI("handoff", "--to", copyBinary(t, a.l.Bin), "--mode", "adopt", "--timeout", "60s")
	if code != 0 {
		t.Fatalf("handoff: exit %d: %s%s", code, out, errOut)
	}
	var now model.BackendStatus
	var inst int
	waitfor.Try(60*time.Second, func() bool {
		st, ok := statusOf(t, a.l)
		if !ok || len(st.Backends) != 1 {
			return false
		}
		inst, now = st.Instance.PID, st.Backends[0]
		return inst != old && now.State == model.StateReady && now.Remote != nil && now.Remote.Connection == "connected" && a.srv.Authentications() == 2
	})
	time.Sleep(2 * time.Second) // probes through the successor's session
	n, failed, slowest := p.finish()
	t.Logf("probes through the local port during the update: %d, %d failed, the slowest %v; authentications %d", n, failed, slowest, a.srv.Authentications())
	if inst == old || now.PID != b.PID || now.ShimPID != b.ShimPID || now.Port != b.Port {
		t.Fatalf("after the update: instance %d (was %d), backend pid %d shim %d port %d; want a new instance with the same backend %d %d on port %d\n%s",
			inst, old, now.PID, now.ShimPID, now.Port, b.PID, b.ShimPID, b.Port, readLogs(t, a.l.StateDir))
	}
	if failed > 0 {
		t.Errorf("%d of %d probes through the local port failed during the update, want none", failed, n)
	}
	stopSuccessor(t, a.l)
	if left := a.srv.WaitClean(15 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
}
