package supervisor

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
)

// connectedRun is a remote run as an update's successor adopts it: its
// connection comes up after the adoption, without a change signalled (a
// claim that lands before the first heartbeat).
type connectedRun struct {
	mu      sync.Mutex
	state   string
	exited  chan struct{}
	changed chan struct{}
	once    sync.Once
}

func newConnectedRun() *connectedRun {
	return &connectedRun{state: "not connected", exited: make(chan struct{}), changed: make(chan struct{})}
}

func (c *connectedRun) set(state string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state = state
}

func (c *connectedRun) Connection() run.Connection {
	c.mu.Lock()
	defer c.mu.Unlock()
	return run.Connection{State: c.state, Host: "example", Port: 8642}
}

func (c *connectedRun) ConnectionChanged() <-chan struct{} { return c.changed }
func (c *connectedRun) Release() error                     { return nil }
func (c *connectedRun) BackendKnown() <-chan struct{}      { return nil }
func (c *connectedRun) Info() run.Info                     { return run.Info{PID: 4242, Nonce: "adopted"} }
func (c *connectedRun) Token() string                      { return "" }
func (c *connectedRun) AwaitReady(context.Context) (int, error) {
	return 0, run.ErrExitedEarly
}
func (c *connectedRun) Exited() <-chan struct{} { return c.exited }
func (c *connectedRun) Exit() run.Exit          { return run.Exit{} }
func (c *connectedRun) Stop() error {
	c.once.Do(func() { close(c.exited) })
	return nil
}
func (c *connectedRun) TreeGone() error { return nil }

// An adopted remote run's status is its connection as it is now, as for a
// run the supervisor started: the card of a backend an update's successor
// claimed said "not connected" until the next heartbeat changed something.
// Once stopped, the status keeps what it last saw.
func TestAdoptedRemoteRunStatusIsLive(t *testing.T) {
	dir := t.TempDir()
	spec := runspec.Spec{Name: "remote", Command: []string{"/bin/false"}, Host: "example"}
	if err := spec.ApplyDefaults("/bin/false"); err != nil {
		t.Fatal(err)
	}
	records, err := lockfile.OpenRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := logs.New(spec.Name, filepath.Join(dir, spec.Name+".log"), nil)
	t.Cleanup(out.Close)
	rec := newRecorder()
	sup := New(spec, instance.Local{}, out, records, Policy{}, -1,
		slog.New(slog.DiscardHandler), rec.notify)
	p := newConnectedRun()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sup.serve(ctx, false, p, model.BackendStatus{Name: spec.Name, Port: 40001, URL: "http://127.0.0.1:40001"})
	rec.waitEntered(t, model.StateReady, 1)

	p.set("connected")
	if got := sup.Status().Remote; got == nil || got.Connection != "connected" {
		t.Fatalf("adopted run connected: status says %+v, want connected", got)
	}

	if err := sup.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	p.set("reconnecting")
	if got := sup.Status().Remote; got != nil && got.Connection == "reconnecting" {
		t.Errorf("a stopped run's status follows the host's connection: %+v", got)
	}
	cancel()
	select {
	case <-sup.Done():
	case <-time.After(waitLimit):
		t.Fatal("the supervisor did not return")
	}
}
