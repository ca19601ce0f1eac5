package proc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"testing"
)

// statLine holds the fields of a /proc/PID/stat line that a test chooses;
// format fills in the rest.
type statLine struct {
	pid   int
	comm  []byte
	state byte
	ppid  int
	pgrp  int
	sess  int
	start uint64
	rss   int64
}

// Bounds of generated fields, as the kernel has them.
const (
	pidMaxLimit = 1 << 22 // PID_MAX_LIMIT on 64-bit
	commMax     = 15      // TASK_COMM_LEN - 1
	taskStates  = "RSDTtXZPI"
)

// format writes the line as the kernel's do_task_stat does: 52 fields,
// single spaces, comm in parentheses and unescaped. The fields we do not
// parse get plausible values, negative ones included (tty_nr, tpgid, nice).
func (s statLine) format() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d (", s.pid)
	b.Write(s.comm)
	b.WriteString(") ")
	b.WriteByte(s.state) // raw: %c would write a byte >= 0x80 as two
	fmt.Fprintf(&b, " %d %d %d", s.ppid, s.pgrp, s.sess)
	// Fields 7-21: tty_nr tpgid flags minflt cminflt majflt cmajflt utime
	// stime cutime cstime priority nice num_threads itrealvalue.
	b.WriteString(" 34816 -1 4194560 1234 0 5 0 17 3 0 0 20 -5 4 0")
	fmt.Fprintf(&b, " %d 987654321 %d", s.start, s.rss) // fields 22-24
	for f := 25; f <= 52; f++ {
		fmt.Fprintf(&b, " %d", f%7)
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// want is what parseStat must return for the line.
func (s statLine) want() statFields {
	return statFields{comm: string(s.comm), state: s.state, ppid: s.ppid, pgrp: s.pgrp, session: s.sess, startTicks: s.start, rssPages: s.rss}
}

// statLineFrom derives valid fields from arbitrary bytes, so the fuzzer
// explores lines the kernel could write. The first byte picks the comm's
// length, the comm takes the next bytes as they are (NUL, which a C string
// cannot hold, becomes ')'), and the numbers come from what follows,
// zero-padded.
func statLineFrom(data []byte) statLine {
	next := func(n int) []byte {
		out := make([]byte, n)
		copy(out, data)
		data = data[min(n, len(data)):]
		return out
	}
	var s statLine
	s.comm = next(int(next(1)[0]) % (commMax + 1))
	for i, c := range s.comm {
		if c == 0 {
			s.comm[i] = ')'
		}
	}
	s.state = taskStates[int(next(1)[0])%len(taskStates)]
	u32 := func() int { return int(binary.LittleEndian.Uint32(next(4)) % pidMaxLimit) }
	s.pid, s.ppid, s.pgrp, s.sess = 1+u32(), u32(), u32(), u32()
	s.start = binary.LittleEndian.Uint64(next(8))
	s.rss = int64(binary.LittleEndian.Uint64(next(8)) >> 2) // pages: far below MaxInt64
	return s
}

// checkAccepted checks what parseStat returns for any line it accepts: the
// process ids are not negative, and the comm is everything between the
// first '(' and the last ')' (a comm may hold both; the fields after it
// cannot), so no ')' follows it.
func checkAccepted(t *testing.T, data []byte) {
	f, err := parseStat(data)
	if err != nil {
		return
	}
	if f.ppid < 0 || f.pgrp < 0 || f.session < 0 {
		t.Errorf("parseStat(%q): got ppid %d pgrp %d session %d, want none negative", data, f.ppid, f.pgrp, f.session)
	}
	open := bytes.IndexByte(data, '(')
	wrapped := "(" + f.comm + ")"
	if open < 0 || !bytes.HasPrefix(data[open:], []byte(wrapped)) {
		t.Fatalf("parseStat(%q): got comm %q, want the text after the first '('", data, f.comm)
	}
	if rest := data[open+len(wrapped):]; bytes.IndexByte(rest, ')') >= 0 {
		t.Errorf("parseStat(%q): got comm %q, followed by %q: want the comm to end at the last ')'", data, f.comm, rest)
	}
	// Written back out in the kernel's layout, the fields read the same.
	s := statLine{pid: 1, comm: []byte(f.comm), state: f.state, ppid: f.ppid, pgrp: f.pgrp, sess: f.session, start: f.startTicks, rss: f.rssPages}
	if again, err := parseStat(s.format()); err != nil || again != f {
		t.Errorf("parseStat of %q written back: got %+v, %v, want %+v", data, again, err, f)
	}
}

// checkRoundTrip formats a valid line from the bytes and parses it back.
func checkRoundTrip(t *testing.T, data []byte) {
	s := statLineFrom(data)
	line := s.format()
	got, err := parseStat(line)
	if err != nil {
		t.Fatalf("parseStat(%q): got %v, want %+v", line, err, s.want())
	}
	if got != s.want() {
		t.Errorf("parseStat(%q): got %+v, want %+v", line, got, s.want())
	}
}

func FuzzParseStat(f *testing.F) {
	if self, err := os.ReadFile("/proc/self/stat"); err == nil {
		f.Add(self)
	}
	f.Add([]byte("1 (a b) S 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0"))
	// Comms that look like the end of the comm and the fields after it
	// (the classic trap for a parser that stops at the first ')').
	for _, comm := range []string{"a) R 1 2 3", ") ) )", "x (y) z", "((", "a\nb\tc d)"} {
		s := statLine{pid: 42, comm: []byte(comm), state: 'S', ppid: 1, pgrp: 42, sess: 42, start: 123456, rss: 789}
		f.Add(s.format())
		f.Add(append([]byte{byte(len(comm))}, comm...)) // the same comm through statLineFrom
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAccepted(t, data)
		checkRoundTrip(t, data)
	})
}

// TestStatLineFromBounds checks the generator itself: whatever the bytes,
// the fields are ones the kernel could write.
func TestStatLineFromBounds(t *testing.T) {
	for _, data := range [][]byte{nil, {0xff}, bytes.Repeat([]byte{0xff}, 64), []byte("\x05a\x00b)c")} {
		s := statLineFrom(data)
		if s.pid <= 0 || s.pid > pidMaxLimit || s.ppid < 0 || s.pgrp < 0 || s.sess < 0 || s.rss < 0 ||
			len(s.comm) > commMax || bytes.IndexByte(s.comm, 0) >= 0 || bytes.IndexByte([]byte(taskStates), s.state) < 0 {
			t.Errorf("statLineFrom(%q): got %+v, want fields in the kernel's bounds", data, s)
		}
	}
	if got, want := string(statLineFrom([]byte("\x05a\x00b)c")).comm), "a)b)c"; got != want {
		t.Errorf("statLineFrom comm: got %q, want %q", got, want)
	}
}
