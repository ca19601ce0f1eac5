package proc

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/shellgroup"
)

func TestParseStat(t *testing.T) {
	fields := make([]string, 50)
	for i := range fields {
		fields[i] = strconv.Itoa(i + 3)
	}
	fields[0] = "S"
	line := "123 (we(ird) )name) " + strings.Join(fields, " ")
	got, err := parseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if got.comm != "we(ird) )name" || got.ppid != 4 || got.pgrp != 5 || got.session != 6 || got.startTicks != 22 || got.rssPages != 24 {
		t.Errorf("parseStat: got %+v", got)
	}
	for _, bad := range []string{"", "1 (x", "1 (x) S 1 2", "1 (x) S a b c " + strings.Repeat("0 ", 30), "1 (x) S -1 1 1 " + strings.Repeat("0 ", 30)} {
		if _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("parseStat(%q): no error", bad)
		}
	}
}

func TestLookupSelf(t *testing.T) {
	id, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	if id.PID != os.Getpid() || !strings.HasPrefix(id.Start, "linux:") || id.BootID == "" {
		t.Errorf("Self: got %+v", id)
	}
	if err := Check(id); err != nil {
		t.Errorf("Check(self): %v", err)
	}
	stale := id
	stale.Start = "linux:1"
	if err := Check(stale); !errors.Is(err, ErrMismatch) {
		t.Errorf("Check with another marker: got %v, want ErrMismatch", err)
	}
	other := id
	other.BootID = "another-boot"
	if err := Check(other); !errors.Is(err, ErrMismatch) {
		t.Errorf("Check from another boot: got %v, want ErrMismatch", err)
	}
}

func TestHandleRefusesReusedPID(t *testing.T) {
	cmd := shellgroup.Start(t, "sleep 30")
	id, err := Lookup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	forged := id
	forged.Start = "linux:1" // what a record of an older process with this PID would hold
	if err := Signal(forged, syscall.SIGKILL); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Signal through a mismatched identity: got %v, want ErrMismatch", err)
	}
	if err := Check(id); err != nil {
		t.Fatalf("the process was signalled anyway: %v", err)
	}
	if err := Signal(id, syscall.SIGKILL); err != nil {
		t.Fatalf("Signal through the right identity: %v", err)
	}
	_ = cmd.Wait()
	if err := Signal(id, syscall.SIGKILL); !IsGone(err) {
		t.Errorf("Signal after reap: got %v, want gone", err)
	}
}

func TestHandleWaitSeesExitOfNonChild(t *testing.T) {
	cmd := shellgroup.Start(t, "sleep 0.2")
	id, _ := Lookup(cmd.Process.Pid)
	h, err := Open(id)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if !h.Wait(ctx) {
		t.Fatal("Wait did not see the exit")
	}
	if !h.Exited() {
		t.Error("Exited false after Wait returned")
	}
}
