package logs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBackendLogRing(t *testing.T) {
	var published int
	l := New("b", filepath.Join(t.TempDir(), "b.log"), func(Line) { published++ })
	defer l.Close()
	for i := 1; i <= ringLines+10; i++ {
		l.Add("stdout", fmt.Sprintf("line %d", i))
	}
	all := l.Since(0, 0)
	if len(all) != ringLines || all[0].Seq != 11 || all[len(all)-1].Seq != ringLines+10 {
		t.Fatalf("ring: got %d lines from seq %d to %d", len(all), all[0].Seq, all[len(all)-1].Seq)
	}
	if got := l.Since(ringLines+8, 0); len(got) != 2 {
		t.Errorf("since: got %d lines, want 2", len(got))
	}
	if got := l.Tail(3); strings.Join(got, ",") != fmt.Sprintf("line %d,line %d,line %d", ringLines+8, ringLines+9, ringLines+10) {
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
	ReadLines(strings.NewReader("a\n"+long+"\nb"), func(s string) { got = append(got, s) })
	if len(got) != 3 || got[0] != "a" || got[2] != "b" || len(got[1]) > MaxLineBytes+64<<10 {
		t.Errorf("got %d lines (second %d bytes)", len(got), len(got[1]))
	}
}
