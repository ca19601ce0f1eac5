package backend

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestBackendLogRing(t *testing.T) {
	var published int
	l := newBackendLog("b", filepath.Join(t.TempDir(), "b.log"), func(LogLine) { published++ })
	defer l.close()
	for i := 1; i <= ringLines+10; i++ {
		l.add("stdout", fmt.Sprintf("line %d", i))
	}
	all := l.since(0, 0)
	if len(all) != ringLines || all[0].Seq != 11 || all[len(all)-1].Seq != ringLines+10 {
		t.Fatalf("ring: got %d lines from seq %d to %d", len(all), all[0].Seq, all[len(all)-1].Seq)
	}
	if got := l.since(ringLines+8, 0); len(got) != 2 {
		t.Errorf("since: got %d lines, want 2", len(got))
	}
	if got := l.tail(3); strings.Join(got, ",") != fmt.Sprintf("line %d,line %d,line %d", ringLines+8, ringLines+9, ringLines+10) {
		t.Errorf("tail: got %v", got)
	}
	if published != ringLines+10 {
		t.Errorf("published %d lines, want %d", published, ringLines+10)
	}
}

func TestRotatingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	r := &rotatingFile{path: path, max: 100, keep: 2}
	for i := 0; i < 20; i++ {
		r.writeLine(strings.Repeat("x", 20))
	}
	r.close()
	for _, p := range []string{path, path + ".1", path + ".2"} {
		fi, err := os.Stat(p)
		if err != nil || fi.Size() > 100 {
			t.Errorf("%s: %v size %d", p, err, fi.Size())
		}
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Errorf("kept more files than asked")
	}
}

func TestReadLinesCutsLongLines(t *testing.T) {
	long := strings.Repeat("y", 200<<10)
	var got []string
	readLines(strings.NewReader("a\n"+long+"\nb"), func(s string) { got = append(got, s) })
	if len(got) != 3 || got[0] != "a" || got[2] != "b" || len(got[1]) > maxLineBytes+64<<10 {
		t.Errorf("got %d lines (second %d bytes)", len(got), len(got[1]))
	}
}

func TestBrokerNeverBlocks(t *testing.T) {
	var b broker
	s := b.subscribe(1)
	b.publish(Event{Kind: EventStatus})
	b.publish(Event{Kind: EventStatus}) // dropped, not blocking
	if !s.Lagged() || s.Lagged() {
		t.Errorf("Lagged should be reported once")
	}
	s.Close()
	s.Close()
	b.publish(Event{Kind: EventStatus})
}

func TestExitStatusString(t *testing.T) {
	cases := map[ExitStatus]string{
		{Code: 0}:                           "code 0",
		{Code: 75}:                          "port is in use",
		{Code: 127}:                         "not found",
		{Code: -1, Signal: syscall.SIGKILL}: "killed by signal 9",
		{Code: 137}:                         "killed by signal 9",
	}
	for st, want := range cases {
		if got := st.String(); !strings.Contains(got, want) {
			t.Errorf("%+v: got %q, want it to contain %q", st, got, want)
		}
	}
}

func TestStateMachine(t *testing.T) {
	if err := checkTransition(StateStopped, StateReady); err == nil {
		t.Errorf("stopped -> ready must be refused")
	}
	if err := checkTransition(StateReady, StateRestarting); err != nil {
		t.Error(err)
	}
}
