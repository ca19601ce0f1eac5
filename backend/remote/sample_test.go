package remote

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/contract/logs"
	"hermes-desktop/watchdog/remotewd"
)

// lines is a lifeline's far end: what the app wrote to the remote
// watchdog.
type lines struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *lines) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.Write(p) }
func (l *lines) Close() error                { return nil }
func (l *lines) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.String() }

// A remote run is a run.Sampler: from the remote watchdog's sample lines,
// the remote tree with its PIDs, RSS and descriptors, judged by the run's
// leak guard, whose duplicate policy becomes kill lines to the remote
// watchdog (named by PID and start time), said in the backend's log with
// the watchdog's answer.
func TestSamplerFromSampleLines(t *testing.T) {
	spec := &runspec.Spec{Name: "far", Kind: settings.KindServe, Command: []string{"hermes", "serve"}, Grace: time.Second}
	log := logs.New("far", "", nil)
	r, err := newInstance(spec, NewMachine("me@box", connectedTransport{}, nil, nil), Runner{Log: log,
		LeakGuard: leakguard.Config{SampleInterval: 2 * time.Second, MaxDuplicateChildren: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.options().SampleEvery; got != 2*time.Second {
		t.Errorf("the remote watchdog samples every %s, want the leak guard's 2s", got)
	}
	if _, err := r.Sample(); !errors.Is(err, leakguard.ErrGone) {
		t.Fatalf("before any sample: %v, want ErrGone", err)
	}
	in := &lines{}
	r.line.attach(in)
	t0 := time.Now().Add(-time.Minute)
	smp := remotewd.RemoteSample{At: time.Now(), NofileSoft: 1024, Processes: []remotewd.RemoteProc{
		{PID: 500, PPID: 400, Start: "linux:500", Started: t0, Argv: []string{"hermes", "serve"}, RSS: 50 << 20, FDs: 20},
		{PID: 501, PPID: 500, Start: "linux:501", Started: t0, Argv: []string{"mcp"}, RSS: 5 << 20, FDs: 4},
		{PID: 502, PPID: 500, Start: "linux:502", Started: t0.Add(time.Second), Argv: []string{"mcp"}, RSS: 5 << 20, FDs: 4},
	}}
	payload, _ := json.Marshal(smp)
	killed, _ := json.Marshal(remotewd.RemoteKilled{PID: 501, Start: "linux:501", Done: true, Why: "sent SIGTERM"})
	r.read(strings.NewReader("sample " + string(payload) + "\nkilled " + string(killed) + "\n"))
	sm, err := r.Sample()
	if err != nil {
		t.Fatal(err)
	}
	ts := sm.Tree
	if ts.NofileSoft != 1024 || ts.Processes[0].PID != 500 || ts.Processes[0].RSSBytes != 50<<20 || ts.Processes[0].FDs != 20 {
		t.Errorf("the tree: got %+v, want the remote backend first with its RSS and fds", ts)
	}
	if ts.Count != 2 || ts.Processes[1].PID != 502 {
		t.Errorf("the tree after the duplicate policy: got %+v, want the backend and the newest mcp", ts.Processes)
	}
	if got := in.String(); got != "kill 501 linux:501\n" {
		t.Errorf("to the remote watchdog: got %q, want the kill line of the oldest duplicate", got)
	}
	all := strings.Join(log.Tail(20), "\n")
	for _, want := range []string{"asking the watchdog on me@box to stop duplicate child remote:501 (mcp): more than 1 copies", "the watchdog on me@box stopped remote:501: sent SIGTERM"} {
		if !strings.Contains(all, want) {
			t.Errorf("the backend's log lacks %q:\n%s", want, all)
		}
	}
	if _, err := r.Sample(); err != nil || in.String() != "kill 501 linux:501\n" {
		t.Errorf("a second look at the same sample: %v, lines %q; want no second kill", err, in.String())
	}
}

// A remote reap's decisions reach the Boot reap page's report with the
// host named, its words the page's.
func TestReapDecisionsNameTheHost(t *testing.T) {
	at := time.Now()
	got := reapDecisions("me@box", at, []remotewd.RemoteReapDecision{
		{OwnershipID: "a", PID: 7, Action: "killed", Reason: "gone"},
		{OwnershipID: "b", Action: "cleaned", Reason: "files"},
		{OwnershipID: "c", Action: "spared", Reason: "alive"},
	})
	if len(got) != 3 || got[0].Host != "me@box" || got[0].Action != "reaped" || got[0].PID != 7 || got[1].Action != "cleaned" || got[2].Action != "spared" || !got[2].At.Equal(at) {
		t.Errorf("got %+v", got)
	}
}
