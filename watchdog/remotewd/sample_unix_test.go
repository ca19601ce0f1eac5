//go:build unix

package remotewd

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// startTree starts `sh` with two sleeping children, three more open
// descriptors and a soft open-file limit of 100, and returns its identity
// once its children run; the test's cleanup ends it all.
func startTree(t *testing.T) proc.Identity {
	t.Helper()
	cmd := exec.Command("sh", "-c", "ulimit -n 100; exec 5</dev/null 6</dev/null 7</dev/null; sleep 60 & sleep 60 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	id, err := proc.Lookup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if !waitfor.Try(5*time.Second, func() bool { ps, _ := proc.DescendantsOf(id.PID); return len(ps) == 2 }) {
		t.Fatal("the tree's children did not start")
	}
	return id
}

// channelLines is a channelWriter whose lines the test reads.
func channelLines(t *testing.T) (*channelWriter, <-chan string) {
	t.Helper()
	pr, pw := io.Pipe()
	out := newChannelWriter(pw)
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { out.close(time.Second); pw.Close() })
	return out, lines
}

// next returns the payload of the next line tagged tag.
func next(t *testing.T, lines <-chan string, tag string, v any) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l := <-lines:
			if got, payload, _ := strings.Cut(l, " "); got == tag {
				if err := json.Unmarshal([]byte(payload), v); err != nil {
					t.Fatalf("%s line %q: %v", tag, l, err)
				}
				return
			}
		case <-timeout:
			t.Fatalf("no %s line", tag)
		}
	}
}

// The sampler sends the real tree: the backend first, its children with
// their parent, command line, memory and descriptors.
func TestSamplerSendsTheTree(t *testing.T) {
	backend := startTree(t)
	out, lines := channelLines(t)
	s := newSampler(backend, backend.PID, nil, time.Second, out, slog.New(slog.DiscardHandler))
	go s.loop(100 * time.Millisecond)
	defer s.close()
	var smp RemoteSample
	// Until both children have exec'd sleep: a sample taken between sh's
	// fork and the child's exec sees a second sh.
	if !waitfor.Try(10*time.Second, func() bool {
		next(t, lines, TagSample, &smp)
		return len(smp.Processes) == 3 && sleeping(smp.Processes[1:])
	}) {
		t.Fatalf("got %+v, want sh and its two sleeps", smp)
	}
	if smp.NofileSoft != 100 {
		t.Errorf("the backend's soft open-file limit: got %d, want 100", smp.NofileSoft)
	}
	sh := smp.Processes[0]
	if sh.PID != backend.PID || sh.Start != backend.Start || sh.RSS <= 0 || sh.FDs < 6 || len(sh.Argv) == 0 || sh.Argv[0] != "sh" {
		t.Errorf("the backend: got %+v, want sh's PID, start, RSS and at least 6 descriptors", sh)
	}
	for _, p := range smp.Processes[1:] {
		if p.PPID != backend.PID || p.RSS <= 0 || p.FDs <= 0 || len(p.Argv) != 2 || p.Argv[0] != "sleep" || p.Start == "" {
			t.Errorf("a child: got %+v, want a sleep of sh's with RSS and descriptors", p)
		}
	}
}

// sleeping reports whether every process of ps runs sleep.
func sleeping(ps []RemoteProc) bool {
	for _, p := range ps {
		if len(p.Argv) == 0 || p.Argv[0] != "sleep" {
			return false
		}
	}
	return true
}

// A kill line stops a process of the tree named by PID and start time,
// and is refused for anything else: a process outside the tree, a wrong
// start time (a reused PID), the backend itself, a malformed line.
func TestSamplerKillOnlyInsideTheTree(t *testing.T) {
	backend := startTree(t)
	outside := exec.Command("sleep", "60")
	if err := outside.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = outside.Process.Kill(); _ = outside.Wait() }()
	decoy, err := proc.Lookup(outside.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	out, lines := channelLines(t)
	s := newSampler(backend, backend.PID, nil, 200*time.Millisecond, out, slog.New(slog.DiscardHandler))
	go s.loop(0)
	defer s.close()
	var smp RemoteSample
	if !waitfor.Try(10*time.Second, func() bool { smp, err = s.sample(); return err == nil && len(smp.Processes) == 3 }) {
		t.Fatalf("the tree: %+v, %v", smp, err)
	}
	child := smp.Processes[1].Identity()
	for _, bad := range []string{
		strings.TrimPrefix(FormatKill(decoy), TagKill+" "),
		strings.TrimPrefix(FormatKill(proc.Identity{PID: child.PID, Start: "linux:1"}), TagKill+" "),
		strings.TrimPrefix(FormatKill(backend), TagKill+" "),
		"12 x", "abc",
	} {
		s.request(bad)
		var k RemoteKilled
		next(t, lines, TagKilled, &k)
		if k.Done || !strings.HasPrefix(k.Why, "refused") {
			t.Errorf("kill %q: got %+v, want refused", bad, k)
		}
	}
	if !running(t, decoy) || !running(t, backend) {
		t.Fatal("a refused kill signalled its target")
	}
	s.request(strings.TrimPrefix(FormatKill(child), TagKill+" "))
	var k RemoteKilled
	next(t, lines, TagKilled, &k)
	if !k.Done || k.PID != child.PID {
		t.Fatalf("kill of a child of the tree: got %+v", k)
	}
	if !waitfor.Try(5*time.Second, func() bool { return !running(t, child) }) {
		t.Errorf("the child %s still runs after its kill", child)
	}
	if !running(t, decoy) || !running(t, backend) {
		t.Error("the kill of a child hit another process")
	}
}

func running(t *testing.T, id proc.Identity) bool {
	t.Helper()
	ok, err := proc.Running(id)
	return err == nil && ok
}

// BenchmarkSampleTree20 is one sample of a 20-process tree (sh and 19
// sleeps) at rest, what the remote watchdog does every --sample-every:
// go test -run '^$' -bench SampleTree20 -benchtime 200x ./watchdog/remotewd/
func BenchmarkSampleTree20(b *testing.B) {
	cmd := exec.Command("sh", "-c", "for i in $(seq 19); do sleep 600 & done; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()
	id, err := proc.Lookup(cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	if !waitfor.Try(5*time.Second, func() bool { ps, _ := proc.DescendantsOf(id.PID); return len(ps) == 19 }) {
		b.Fatal("the tree did not start")
	}
	s := newSampler(id, id.PID, nil, time.Second, newChannelWriter(io.Discard), slog.New(slog.DiscardHandler))
	b.ResetTimer()
	for range b.N {
		smp, err := s.sample()
		if err != nil || len(smp.Processes) != 20 {
			b.Fatalf("sample: %d processes, %v", len(smp.Processes), err)
		}
		s.out.sendJSON(TagSample, smp)
	}
}
