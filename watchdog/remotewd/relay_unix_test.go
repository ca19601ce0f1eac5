//go:build unix

package remotewd

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hermes-desktop/contract/logs"
	"hermes-desktop/internal/waitfor"
)

// lockedBuffer is the app's end of the channel: what the relay sent.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// laterLines is how many lines the backend prints after its long one:
// more than a pipe holds (about 200 KiB), so a relay that stopped reading
// would leave the backend blocked on a write.
const laterLines = 2000

// TestRelayCutsLongLines: a real backend printing a 1 MiB line and then
// 200 KiB more exits on its own, every later line arrives in order, and
// the long one arrives cut.
func TestRelayCutsLongLines(t *testing.T) {
	var sent lockedBuffer
	out := newChannelWriter(&sent)
	r, err := newRelay(filepath.Join(t.TempDir(), "backend.log"), out)
	if err != nil {
		t.Fatal(err)
	}
	script := `head -c 1048576 /dev/zero | tr '\000' x; echo; i=0; ` +
		`while [ $i -lt ` + fmt.Sprint(laterLines) + ` ]; do echo "line $i ` + strings.Repeat("y", 90) + `"; i=$((i+1)); done`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Stdout, cmd.Stderr = r.outW, r.errW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.started()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // a blocked backend: the failure below says so
		<-exited
	})
	var waitErr error
	waitfor.Until(t, 30*time.Second, "the backend to exit (a relay that stops reading blocks it)", func() bool {
		select {
		case waitErr = <-exited:
			exited <- waitErr
			return true
		default:
			return false
		}
	})
	if waitErr != nil {
		t.Fatalf("backend: %v", waitErr)
	}
	r.drain(10 * time.Second)
	out.close(10 * time.Second)

	got := strings.Split(strings.TrimSuffix(sent.String(), "\n"), "\n")
	if len(got) != 1+laterLines {
		t.Fatalf("got %d lines, want %d", len(got), 1+laterLines)
	}
	long := strings.TrimPrefix(got[0], TagOut+" ")
	if strings.Trim(long, "x") != "" || len(long) < logs.MaxLineBytes || len(long) >= 1<<20 {
		t.Errorf("the long line arrived as %d bytes of %q..., want it cut to between %d and %d x's", len(long), long[:min(len(long), 20)], logs.MaxLineBytes, 1<<20)
	}
	for i, line := range got[1:] {
		if want := fmt.Sprintf("%s line %d %s", TagOut, i, strings.Repeat("y", 90)); line != want {
			t.Fatalf("line %d: got %.40q, want %.40q", i+1, line, want)
		}
	}
}
