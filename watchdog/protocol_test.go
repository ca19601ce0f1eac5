package watchdog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"hermes-desktop/internal/proc"
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
	t.Setenv(envGrace, "17s")
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

func TestReportRoundTrip(t *testing.T) {
	for _, want := range []Report{
		{PID: 4242, Start: "linux:123456"},
		{PID: 99, Start: "ps:Mon Jan  2 15:04:05 2006"},
		{PID: 7, Start: "linux:1", Cgroup: "/user.slice/hermes-backend-00112233445566778899aabbccddeeff"},
		{PID: 7, Start: "linux:1", CgroupError: "proc: create cgroup /x: permission denied"},
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
