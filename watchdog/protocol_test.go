package watchdog

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"hermes-desktop/platform/proc"
)

// shimOptionCases are option sets as a launcher would give them, and some
// it would not, that must still survive the trip through the command line.
var shimOptionCases = []struct {
	name string
	o    ShimOptions
}{
	{"as the launcher sets them", ShimOptions{
		Lifeline: LifelineFD, Report: ReportFD,
		Parent: Parent{PID: 4242, Start: "linux:123456", Nonce: "00112233445566778899aabbccddeeff"},
		Grace:  5 * time.Second, Argv: []string{"hermes", "serve", "--host", "127.0.0.1", "--port", "0"},
	}},
	{"with the owner's exit word (Linux)", ShimOptions{
		Lifeline: LifelineFD, Report: ReportFD, OwnerExit: OwnerExitFD,
		Parent: Parent{PID: 4242, Start: "linux:123456", Nonce: "00112233445566778899aabbccddeeff"},
		Grace:  5 * time.Second, Argv: []string{"hermes", "serve"},
	}},
	{"Windows handle values", ShimOptions{
		Lifeline: 0x1a4, Report: 0x7ffc, Parent: Parent{PID: 4242, Start: "winms:1796184776865", Nonce: "00112233445566778899aabbccddeeff"},
		Grace: 5 * time.Second, Argv: []string{`C:\Program Files\Hermes\hermes.exe`, "serve", "--host", "127.0.0.1", "--port", "0"},
	}},
	{"no marker, no nonce", ShimOptions{
		Lifeline: LifelineFD, Report: ReportFD, Parent: Parent{PID: 77},
		Grace: time.Second, Argv: []string{"hermes", "serve"},
	}},
	{"marker with spaces", ShimOptions{
		Lifeline: LifelineFD, Report: ReportFD,
		Parent: Parent{PID: 99, Start: "ps:Mon Jan  2 15:04:05 2006", Nonce: "ffeeddccbbaa99887766554433221100"},
		Grace:  2 * time.Second, Argv: []string{"hermes"},
	}},
	{"kinfo marker", ShimOptions{
		Lifeline: LifelineFD, Report: ReportFD, Parent: Parent{PID: 12, Start: "kinfo:1700000000.123456", Nonce: "n"},
		Grace: 1500 * time.Millisecond, Argv: []string{"x"},
	}},
	{"no fds, zero grace", ShimOptions{
		Lifeline: -1, Report: -1, Parent: Parent{PID: 2}, Grace: 0, Argv: []string{"true"},
	}},
	{"odd grace values", ShimOptions{
		Lifeline: 7, Report: 9, Parent: Parent{PID: 3, Start: "winms:133000000000000"},
		Grace: time.Hour + 30*time.Minute + time.Nanosecond, Argv: []string{"sleep", "1"},
	}},
	{"largest grace", ShimOptions{
		Lifeline: LifelineFD, Report: ReportFD, Parent: Parent{PID: 5}, Grace: 1<<63 - 1, Argv: []string{"x"},
	}},
	{"argv with shim flags and --", ShimOptions{
		Lifeline: LifelineFD, Report: ReportFD, Parent: Parent{PID: 4242, Start: "linux:1", Nonce: "abc"},
		Grace: 300 * time.Millisecond,
		Argv:  []string{"--grace", "1s", "--lifeline=9", "--", "-nonce", "x", "--report", "-1", "--"},
	}},
	{"values that look like flags", ShimOptions{
		Lifeline: LifelineFD, Report: ReportFD, Parent: Parent{PID: 4242, Nonce: "--"},
		Grace: time.Second, Argv: []string{"-h"},
	}},
	{"with a cgroup", ShimOptions{
		Lifeline: LifelineFD, Report: ReportFD,
		Parent: Parent{PID: 4242, Start: "linux:123456", Nonce: "00112233445566778899aabbccddeeff"},
		Grace:  5 * time.Second, Cgroup: "hermes-backend-00112233445566778899aabbccddeeff",
		Argv: []string{"hermes", "serve", "--host", "127.0.0.1", "--port", "0"},
	}},
	{"cgroup name that looks like a flag", ShimOptions{
		Lifeline: LifelineFD, Report: ReportFD, Parent: Parent{PID: 4242}, Grace: time.Second, Cgroup: "--", Argv: []string{"--cgroup=x"},
	}},
	{"nonce with = and newline", ShimOptions{
		Lifeline: LifelineFD, Report: ReportFD, Parent: Parent{PID: 4242, Nonce: "a=b\nc"},
		Grace: time.Second, Argv: []string{""},
	}},
}

func TestShimArgsRoundTrip(t *testing.T) {
	// A default the parser would fall back to if Args left --grace out.
	t.Setenv(EnvGrace, "17s")
	for _, tc := range shimOptionCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseShimFlags(tc.o.Args(), io.Discard)
			if err != nil {
				t.Fatalf("parse %q: %v", tc.o.Args(), err)
			}
			if !reflect.DeepEqual(got, tc.o) {
				t.Errorf("parse %q:\n got %+v\nwant %+v", tc.o.Args(), got, tc.o)
			}
		})
	}
}

// TestShimCommand checks the full command line: the executable, the
// subcommand, then exactly Args(), with no element but the separator equal
// to "--" before the backend's argv (ParseShape splits there).
func TestShimCommand(t *testing.T) {
	for _, tc := range shimOptionCases {
		t.Run(tc.name, func(t *testing.T) {
			argv := ShimCommand("/opt/hermes-desktop", tc.o)
			if len(argv) < 2 || argv[0] != "/opt/hermes-desktop" || argv[1] != Subcommand {
				t.Fatalf("got %q, want /opt/hermes-desktop %s ...", argv, Subcommand)
			}
			if got, want := argv[2:], tc.o.Args(); !reflect.DeepEqual(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
			sep := -1
			for i, a := range argv {
				if a == argsEnd {
					sep = i
					break
				}
			}
			if sep < 0 || !reflect.DeepEqual(argv[sep+1:], tc.o.Argv) {
				t.Errorf("first %q in %q: got backend argv %q, want %q", argsEnd, argv, argv[sep+1:], tc.o.Argv)
			}
		})
	}
}

// --cgroup takes one path element: the shim only creates a child of its
// own cgroup, never a path elsewhere in the hierarchy.
func TestShimCgroupFlagRefusesPaths(t *testing.T) {
	for _, name := range []string{"/abs", "a/b", ".", "..", "x\x00y", strings.Repeat("a", 256)} {
		args := ShimOptions{Lifeline: -1, Report: -1, Parent: Parent{PID: 2}, Cgroup: name, Argv: []string{"x"}}.Args()
		if o, err := parseShimFlags(args, io.Discard); err == nil {
			t.Errorf("--cgroup=%q: got %+v, want an error", name, o)
		}
	}
}

// --owner-exit names an fd past stderr: the shim maps and closes it, and
// must never take stdin or a log pipe for it.
func TestShimOwnerExitFlagRefusesStdio(t *testing.T) {
	for _, fd := range []string{"-1", "1", "2"} {
		args := []string{"--" + FlagOwnerExit + "=" + fd, "--" + FlagParentPID + "=2", "--", "x"}
		if o, err := parseShimFlags(args, io.Discard); err == nil {
			t.Errorf("--%s=%s: got %+v, want an error", FlagOwnerExit, fd, o)
		}
	}
}

func TestReportRoundTrip(t *testing.T) {
	for _, want := range []Report{
		{PID: 4242, Start: "linux:123456"},
		{PID: 99, Start: "ps:Mon Jan  2 15:04:05 2006"},
		{PID: 7, Start: "linux:1", Cgroup: "/user.slice/hermes-backend-00112233445566778899aabbccddeeff"},
		{PID: 7, Start: "linux:1", CgroupError: "cgroup: create cgroup /x: permission denied"},
		{Error: `watchdog: start "hermes": exec: "hermes": executable file not found in $PATH` + "\n\"quoted\""},
		{},
	} {
		var buf bytes.Buffer
		if err := writeReport(&buf, want); err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(buf.Bytes(), []byte("\n")); n != 1 || !bytes.HasSuffix(buf.Bytes(), []byte("\n")) {
			t.Errorf("report %q: got %d newlines, want one line", buf.String(), n)
		}
		got, err := ReadReport(&buf)
		if err != nil {
			t.Fatalf("read %+v: %v", want, err)
		}
		if got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	}
}

func TestReadReportErrors(t *testing.T) {
	if _, err := ReadReport(strings.NewReader("")); !errors.Is(err, io.EOF) {
		t.Errorf("no line: got %v, want io.EOF", err)
	}
	if _, err := ReadReport(strings.NewReader("not json\n")); !errors.Is(err, ErrBadReport) {
		t.Errorf("garbage: got %v, want ErrBadReport", err)
	}
	long := `{"error":"` + strings.Repeat("x", maxReportLine) + `"}` + "\n"
	if _, err := ReadReport(strings.NewReader(long)); !errors.Is(err, ErrBadReport) {
		t.Errorf("over-long line: got %v, want ErrBadReport", err)
	}
}

func TestOwnerMessageRoundTrip(t *testing.T) {
	for _, id := range []proc.Identity{
		{PID: 4242, Start: "linux:123456"},
		{PID: 99, Start: "ps:Mon Jan  2 15:04:05 2006"},
		{PID: 1234, Start: "winms:133000000000000"},
	} {
		line := FormatOwner(id)
		if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
			t.Fatalf("owner message %q: want one line", line)
		}
		got, ok := parseOwner(strings.TrimSuffix(line, "\n"))
		if want := (Parent{PID: id.PID, Start: id.Start}); !ok || got != want {
			t.Errorf("parse %q: got %+v, %v, want %+v, true", line, got, ok, want)
		}
	}
	for _, line := range []string{StartMessage, "owner", "owner 1 linux:1", "owner 12", "owner x linux:1", "owner 12 bogus"} {
		if p, ok := parseOwner(line); ok {
			t.Errorf("parse %q: got %+v, want no owner", line, p)
		}
	}
	if got := FormatStart(); got != StartMessage+"\n" {
		t.Errorf("got %q, want %q", got, StartMessage+"\n")
	}
}

// FuzzShimArgs checks that the parser inverts Args for any options it
// accepts at all.
func FuzzShimArgs(f *testing.F) {
	f.Add(3, 4, 4242, "linux:123456", "00112233445566778899aabbccddeeff", int64(5*time.Second), "", "hermes\x00serve")
	f.Add(-1, -1, 2, "", "", int64(0), "hermes-backend-0011", "--\x00--grace=1s")
	f.Add(3, 4, 99, "ps:Mon Jan  2 15:04:05 2006", "--", int64(1), "--", "-h")
	f.Fuzz(func(t *testing.T, lifeline, report, pid int, marker, nonce string, grace int64, cgroup, joined string) {
		o := ShimOptions{
			Lifeline: lifeline, Report: report,
			Parent: Parent{PID: pid, Start: marker, Nonce: nonce},
			Grace:  time.Duration(grace), Cgroup: cgroup, Argv: strings.Split(joined, "\x00"),
		}
		if pid == 0 || grace < 0 || (cgroup != "" && !validCgroupName(cgroup)) {
			return // not round-trippable by design: getppid(), rejected
		}
		if _, _, err := proc.ParseMarker(marker); marker != "" && err != nil {
			return // rejected by the parser
		}
		got, err := parseShimFlags(o.Args(), io.Discard)
		if err != nil {
			t.Fatalf("parse %q: %v", o.Args(), err)
		}
		if !reflect.DeepEqual(got, o) {
			t.Fatalf("parse %q:\n got %+v\nwant %+v", o.Args(), got, o)
		}
	})
}

// TestShimPipesRoundTrip runs the protocol across a real process boundary:
// the test binary, re-run as the shim's side (helperShimEnd), parses the
// flags the launcher's side wrote, opens the ends they name, reads the
// start and owner messages and writes the report; the launcher's side
// reads the report to its EOF and closes the lifeline, which the shim's
// side sees as EOF. A child started meanwhile without Attach inherits
// neither end: if it did, it would hold the report open and no EOF would
// come. On Windows this is what AdditionalInheritedHandles and the handle
// values in the flags carry; with the fd numbers of Unix, or ExtraFiles,
// the shim's side could not start or open its ends.
func TestShimPipesRoundTrip(t *testing.T) {
	p, err := NewShimPipes()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.CloseShimEnds(); p.Lifeline.Close(); p.Report.Close() })
	o := ShimOptions{
		Lifeline: p.ShimLifeline, Report: p.ShimReport, Parent: Parent{PID: os.Getpid()},
		Grace: time.Second, Argv: []string{"backend"},
	}
	cmd := exec.Command(os.Args[0], o.Args()...)
	cmd.Env = append(os.Environ(), helperEnv+"="+helperShimEnd)
	cmd.Stderr = os.Stderr
	lines := stdoutLines(t, cmd)
	if err := p.Attach(cmd); err != nil {
		t.Fatal(err)
	}
	bystander := startHelper(t, helperSleep) // while the shim's ends are ready to inherit
	done := startWaited(t, cmd)
	p.CloseShimEnds()

	if _, err := io.WriteString(p.Lifeline, FormatStart()); err != nil {
		t.Fatal(err)
	}
	rep, err := within(t, "the report", func() (Report, error) { return ReadReport(p.Report) })
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	if rep.PID != cmd.Process.Pid || rep.Start == "" || rep.Error != "" {
		t.Errorf("report: got %+v, want pid %d with a start marker", rep, cmd.Process.Pid)
	}
	if _, err := within(t, "EOF on the report", func() (int, error) { return p.Report.Read(make([]byte, 1)) }); !errors.Is(err, io.EOF) {
		t.Errorf("read after the report: got %v, want io.EOF (someone else holds the report's write end)", err)
	}

	owner, err := proc.Lookup(bystander.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p.Lifeline, FormatOwner(owner)); err != nil {
		t.Fatal(err)
	}
	if got, want := nextLine(t, lines), strings.TrimSuffix(FormatOwner(owner), "\n"); got != want {
		t.Errorf("owner message seen by the shim's side: got %q, want %q", got, want)
	}
	p.Lifeline.Close()
	if got, want := nextLine(t, lines), string(ReasonLifeline); got != want {
		t.Errorf("after the launcher closed the lifeline: got %q, want %q", got, want)
	}
	if st := waitDone(t, cmd, done); st.ExitCode() != 0 {
		t.Errorf("shim's side: got exit code %d, want 0", st.ExitCode())
	}
}

// helperWait bounds each wait on a helper in these tests.
const helperWait = 10 * time.Second

// startHelper starts the test binary as helper h; cleanup kills it.
func startHelper(t *testing.T, h string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+h)
	startWaited(t, cmd)
	return cmd
}

// startWaited starts cmd and its only waiter, which closes the channel it
// returns; cleanup kills cmd if it is still running and waits.
func startWaited(t *testing.T, cmd *exec.Cmd) <-chan struct{} {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // ours; a no-op once it has exited
		<-done
	})
	return done
}

// waitDone waits for cmd's waiter and returns how cmd ended.
func waitDone(t *testing.T, cmd *exec.Cmd, done <-chan struct{}) *os.ProcessState {
	t.Helper()
	select {
	case <-done:
		return cmd.ProcessState
	case <-time.After(helperWait):
		t.Fatalf("%s still running after %v", cmd.Path, helperWait)
		return nil
	}
}

// stdoutLines sends cmd's stdout to the channel it returns, line by line.
func stdoutLines(t *testing.T, cmd *exec.Cmd) <-chan string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		s := bufio.NewScanner(r)
		for s.Scan() {
			lines <- strings.TrimRight(s.Text(), "\r")
		}
	}()
	t.Cleanup(func() { r.Close() })
	// Our copy of the write end goes once the child has its own.
	t.Cleanup(func() { w.Close() })
	return lines
}

func nextLine(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("stdout closed")
		}
		return l
	case <-time.After(helperWait):
		t.Fatalf("no line on stdout within %v", helperWait)
		return ""
	}
}

// within runs f, failing the test if it does not return within helperWait.
func within[T any](t *testing.T, what string, f func() (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	c := make(chan result, 1)
	go func() { v, err := f(); c <- result{v, err} }()
	select {
	case r := <-c:
		return r.v, r.err
	case <-time.After(helperWait):
		t.Fatalf("%s: nothing within %v", what, helperWait)
		var zero T
		return zero, nil
	}
}
