package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"hermes-desktop/internal/waitfor"
)

// collectorHelperEnv runs TestCollectOrphansHelper for real: in a process of its
// own, since it makes that process a subreaper and collects its orphans.
const collectorHelperEnv = "HERMES_PROC_TEST_REAPER"

// TestCollectOrphans: a subreaper running CollectOrphans is left no zombie by
// orphans (an opener that forks a child and exits, five times), and the
// children it starts itself keep their exit status for their owners, even
// when the owner waits long after the exit and the child exits at once.
func TestCollectOrphans(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCollectOrphansHelper$", "-test.v")
	cmd.Env = append(os.Environ(), collectorHelperEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
}

func TestCollectOrphansHelper(t *testing.T) {
	if os.Getenv(collectorHelperEnv) != "1" {
		t.Skip("run by TestCollectOrphans")
	}
	if err := SetChildSubreaper(true); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); CollectOrphans(ctx, nil) }()
	defer func() { cancel(); <-done }()

	// Our own children, exiting at once with a status their owners wait
	// for only after CollectOrphans has had every chance to take it.
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			cmd := exec.Command("/bin/sh", "-c", "exit 7")
			waited, err := StartChild(cmd)
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(ForeignWait + 500*time.Millisecond)
			err = cmd.Wait()
			waited()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 7 {
				t.Errorf("owned child: Wait = %v, want exit status 7", err)
			}
		})
	}
	// Orphans: an opener that hands off to a child and exits at once, as
	// xdg-open does to a browser; the child exits soon after.
	for range 5 {
		if err := RunChild(exec.Command("/bin/sh", "-c", `/bin/sh -c "sleep 0.05" & exit 0`)); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	var zombies []int
	if !waitfor.Try(5*time.Second, func() bool { zombies = zombieChildren(t); return len(zombies) == 0 }) {
		t.Fatalf("zombie children 5 s after they exited: %v", zombies)
	}
}

// zombieChildren lists this process's children that are zombies.
func zombieChildren(t *testing.T) []int {
	t.Helper()
	kids, ok := childrenOf(os.Getpid())
	if !ok {
		t.Fatal("no /proc/PID/task/*/children")
	}
	var zs []int
	for _, pid := range kids {
		if f, err := readStat(pid); err == nil && f.state == 'Z' {
			zs = append(zs, pid)
		}
	}
	return zs
}
