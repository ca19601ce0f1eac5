package unit

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The helper process: this test binary re-run to do one replacement,
// stopped by faultStopAfter at the step the test names, where the test
// kills it.
const (
	helperOp   = "UNIT_TEST_HELPER_OP"
	helperDir  = "UNIT_TEST_HELPER_DIR"
	helperStep = "UNIT_TEST_HELPER_STEP"
)

func TestMain(m *testing.M) {
	if op := os.Getenv(helperOp); op != "" {
		os.Exit(helper(op, os.Getenv(helperDir), os.Getenv(helperStep)))
	}
	os.Exit(m.Run())
}

func helper(op, dir, step string) int {
	faultStopAfter = step
	var err error
	switch op {
	case OpUpdate:
		err = Swap(dir, "staged", "old", Versions{From: "1.0.0", To: "1.1.0"})
	case OpRollback:
		err = Restore(dir, "old", "failed", Versions{From: "1.1.0", To: "1.0.0"})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// oldUnit and newUnit differ in every entry, and each has one the other
// has not (THIRD_PARTY_LICENSES, LICENSE.txt).
var (
	oldUnit = map[string]string{ExeUnix: "exe 1.0.0", "LICENSE": "MIT 1", "THIRD_PARTY_LICENSES": "old only",
		"cores/VERSION": "1.0.0\n", "cores/a.gz": "core 1.0.0", "cores/gone.gz": "only in 1.0.0"}
	newUnit = map[string]string{ExeUnix: "exe 1.1.0", "LICENSE": "MIT 2", "LICENSE.txt": "new only",
		"cores/VERSION": "1.1.0\n", "cores/a.gz": "core 1.1.0"}
)

// write puts files under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// digestOf is the unit digest of files laid out in a fresh directory.
func digestOf(t *testing.T, files map[string]string) Sum {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, files)
	s, err := Digest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// beforeUpdate is an install holding oldUnit, its own files, the staged
// newUnit and an empty old/.
func beforeUpdate(t *testing.T) string {
	dir := t.TempDir()
	write(t, dir, oldUnit)
	write(t, dir, map[string]string{"install-type": "portable\n", "install.sh": "#!/bin/sh\n"})
	write(t, filepath.Join(dir, "staged"), newUnit)
	if err := os.Mkdir(filepath.Join(dir, "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// beforeRollback is an install after an update: newUnit in place, oldUnit
// kept in old/.
func beforeRollback(t *testing.T) string {
	dir := t.TempDir()
	write(t, dir, newUnit)
	write(t, dir, map[string]string{"install-type": "portable\n", "install.sh": "#!/bin/sh\n"})
	write(t, filepath.Join(dir, "old"), oldUnit)
	return dir
}

// crashAt runs op in the helper process, stopped at step, and kills it
// there (SIGKILL): a crash at that point. step "" runs it to the end.
func crashAt(t *testing.T, op, dir, step string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperOp+"="+op, helperDir+"="+dir, helperStep+"="+step)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if step == "" {
		out, _ := bufio.NewReader(stderr).ReadString(0)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%s: %v: %s", op, err, out)
		}
		return
	}
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if !strings.Contains(line, "stopped after step "+step+" ") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%s: the helper said %q (%v), want it stopped after step %s", op, line, err, step)
	}
	if err := cmd.Process.Kill(); err != nil { // our own child, not yet waited for
		t.Fatal(err)
	}
	cmd.Wait()
}

// wantWhole checks that dir holds exactly the unit files (by digest),
// its own files untouched, and no journal.
func wantWhole(t *testing.T, dir string, files map[string]string, what string) {
	t.Helper()
	got, err := Digest(dir)
	if want := digestOf(t, files); err != nil || got != want {
		t.Errorf("%s: the install's unit is %v (%v), want %s %v", what, got, err, what, want)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "install-type")); err != nil || string(data) != "portable\n" {
		t.Errorf("%s: install-type %q %v, want it untouched", what, data, err)
	}
	if exists(filepath.Join(dir, JournalFile)) {
		t.Errorf("%s: the journal is still there", what)
	}
}

// TestCrashDuringUpdate kills the process replacing the unit at every
// step, from the journal written to the outcome journaled, and then
// recovers as the next start does: the install is the old unit until the
// executable has come in, the new one from then on, whole either way, and
// Recover says which; the unit replaced is kept in old/ only when the new
// one stays.
func TestCrashDuringUpdate(t *testing.T) {
	moves, err := plan(beforeUpdate(t), "staged")
	if err != nil {
		t.Fatal(err)
	}
	for step := 0; step <= len(moves)+1; step++ {
		t.Run("step "+strconv.Itoa(step), func(t *testing.T) {
			dir := beforeUpdate(t)
			crashAt(t, OpUpdate, dir, strconv.Itoa(step))
			r, err := Recover(dir)
			if err != nil || r == nil {
				t.Fatalf("Recover: %v %v", r, err)
			}
			done := step >= len(moves)
			if r.Done != done || r.Installed() != map[bool]string{true: "1.1.0", false: "1.0.0"}[done] {
				t.Errorf("Recover said %q, want done %v", r, done)
			}
			if done {
				wantWhole(t, dir, newUnit, "the new unit")
				if got, err := Digest(filepath.Join(dir, "old")); err != nil || got != digestOf(t, oldUnit) {
					t.Errorf("old/ holds %v %v, want the old unit kept", got, err)
				}
			} else {
				wantWhole(t, dir, oldUnit, "the old unit")
				if exists(filepath.Join(dir, "old")) {
					t.Error("old/ is still there after the update was undone")
				}
			}
			if exists(filepath.Join(dir, "staged")) {
				t.Error("the staged unit is still there")
			}
			if r, err := Recover(dir); r != nil || err != nil {
				t.Errorf("a second Recover: %v %v, want nothing to do", r, err)
			}
		})
	}
	t.Logf("%d entries (%v); the executable is the last", len(moves), moves)
}

// TestCrashDuringRollback is the same for a rollback: until the old
// executable is back, the new unit stays; from then on, the old one is
// in place and nothing of the failed one is left.
func TestCrashDuringRollback(t *testing.T) {
	dir := beforeRollback(t)
	moves, err := plan(dir, "old")
	if err != nil {
		t.Fatal(err)
	}
	for step := 0; step <= len(moves)+1; step++ {
		t.Run("step "+strconv.Itoa(step), func(t *testing.T) {
			dir := beforeRollback(t)
			crashAt(t, OpRollback, dir, strconv.Itoa(step))
			r, err := Recover(dir)
			if err != nil || r == nil {
				t.Fatalf("Recover: %v %v", r, err)
			}
			done := step >= len(moves)
			if r.Done != done {
				t.Errorf("Recover said %q, want done %v", r, done)
			}
			if done {
				wantWhole(t, dir, oldUnit, "the old unit")
				if exists(filepath.Join(dir, "old")) {
					t.Error("old/ is still there after the rollback")
				}
			} else {
				wantWhole(t, dir, newUnit, "the new unit")
				if got, err := Digest(filepath.Join(dir, "old")); err != nil || got != digestOf(t, oldUnit) {
					t.Errorf("old/ holds %v %v, want the old unit still kept", got, err)
				}
			}
			if exists(filepath.Join(dir, "failed")) {
				t.Error("the failed unit's directory is still there")
			}
		})
	}
}

// TestSwapAndRestore: a replacement run to its end, then its rollback.
func TestSwapAndRestore(t *testing.T) {
	dir := beforeUpdate(t)
	crashAt(t, OpUpdate, dir, "")
	wantWhole(t, dir, newUnit, "the new unit")
	crashAt(t, OpRollback, dir, "")
	wantWhole(t, dir, oldUnit, "the old unit")
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "LICENSE THIRD_PARTY_LICENSES cores hermes-desktop install-type install.sh" {
		t.Errorf("the install holds %s", got)
	}
}

// TestRecoverLeavesALiveReplacement: a journal whose writer still runs is
// a replacement in progress: Recover touches nothing and says so.
func TestRecoverLeavesALiveReplacement(t *testing.T) {
	dir := beforeUpdate(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperOp+"="+OpUpdate, helperDir+"="+dir, helperStep+"=1")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, _ := bufio.NewReader(stderr).ReadString('\n'); !strings.Contains(line, "stopped after step 1") {
		t.Fatalf("the helper said %q", line)
	}
	if r, err := Recover(dir); r != nil || !errors.Is(err, ErrBusy) {
		t.Fatalf("Recover during a live replacement: %v %v, want ErrBusy", r, err)
	}
	if !exists(filepath.Join(dir, JournalFile)) {
		t.Error("the live replacement's journal was removed")
	}
}

func TestJournalRefusesStrangeDirectories(t *testing.T) {
	for _, j := range []Journal{
		{In: "../x", Aside: "old"}, {In: "staged", Aside: "cores"}, {In: "a/b", Aside: "old"}, {In: `a\b`, Aside: "old"},
		{In: "staged", Aside: "staged"}, {In: "staged", Aside: JournalFile},
	} {
		j.Format, j.Op, j.Phase, j.Entries = journalFormat, OpUpdate, phaseMoving, []Move{{Name: ExeUnix, Cur: true, In: true}}
		if err := j.validate(); err == nil {
			t.Errorf("%q and %q: accepted", j.In, j.Aside)
		}
	}
}
