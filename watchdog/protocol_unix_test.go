//go:build unix

package watchdog

import (
	"os"
	"os/exec"
	"testing"
)

func TestShimFiles(t *testing.T) {
	r, l, err := os.Pipe() // any two files: only which lands where matters
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); l.Close() })
	files := ShimFiles(l, r)
	if got, want := len(files), ReportFD-firstExtraFD+1; got != want {
		t.Fatalf("got %d files, want %d", got, want)
	}
	if files[LifelineFD-firstExtraFD] != l || files[ReportFD-firstExtraFD] != r {
		t.Errorf("got %v, want the lifeline at fd %d and the report at fd %d", files, LifelineFD, ReportFD)
	}
}

// Attach refuses a command with extra files of its own: they would move
// the shim's ends off the fds its flags name.
func TestShimPipesAttachRefusesExtraFiles(t *testing.T) {
	p, err := NewShimPipes()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.CloseShimEnds(); p.Lifeline.Close(); p.Report.Close() })
	cmd := exec.Command("true")
	cmd.ExtraFiles = []*os.File{os.Stdin}
	if err := p.Attach(cmd); err == nil {
		t.Errorf("got ExtraFiles %v and no error, want an error", cmd.ExtraFiles)
	}
}
