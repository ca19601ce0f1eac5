package sampling

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"hermes-desktop/platform/proc"

	"hermes-desktop/internal/waitfor"
)

// TestReadUsageReadsStatmRSS: the resident set is the kernel's exact count,
// the one /proc/PID/status reports as VmRSS (stat's is a per-CPU estimate
// that can lag by a few hundred kB), for a process whose memory settled.
func TestReadUsageReadsStatmRSS(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	vmRSS := func() int64 {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				return kb * 1024
			}
		}
		return -1 // before exec's end, or a kernel thread
	}
	// Until sleep has exec'd and loaded, its memory moves: compare once a
	// reading before and one after agree.
	var u Usage
	var before int64
	var err error
	waitfor.Until(t, 5*time.Second, "sleep's memory to settle", func() bool {
		before = vmRSS()
		u, err = ReadUsage(cmd.Process.Pid)
		return err != nil || (before > 0 && before == vmRSS())
	})
	if err != nil {
		t.Fatal(err)
	}
	if u.RSS != before {
		t.Fatalf("got RSS %d, want %d (VmRSS)", u.RSS, before)
	}
	if u.FDs < 3 {
		t.Fatalf("got %d fds, want at least stdin, stdout, stderr", u.FDs)
	}
	if _, err := ReadUsage(1 << 30); !errors.Is(err, proc.ErrNotFound) {
		t.Fatalf("a PID that does not exist: got %v, want ErrNotFound", err)
	}
}
