// Package logs keeps each backend's output twice: a ring buffer of recent
// lines for the window and status, and a size-rotated file under
// <state>/logs. Its Line is what the page, the CLI and the diagnostic
// report read of a backend's output.
package logs

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Line is one line a backend printed.
type Line struct {
	// Seq increases by one per line of the same backend, so a reader can ask
	// for what came after the last line it saw.
	Seq     uint64    `json:"seq"`
	Time    time.Time `json:"time"`
	Backend string    `json:"backend"`
	Stream  string    `json:"stream"` // "stdout", "stderr" or "launcher"
	Text    string    `json:"text"`
}

// MaxLineBytes is the longest line kept; a longer one is cut there.
const MaxLineBytes = 16 << 10

// Log size limits.
const (
	ringLines   = 2000
	logMaxBytes = 5 << 20
	logKeep     = 3
)

// Log keeps a backend's output twice: a ring buffer of recent lines
// for the UI and status, and a size-rotated file under <state>/logs.
type Log struct {
	name string
	mu   sync.Mutex // guards everything below
	ring []Line
	next int // ring index of the next write
	seq  uint64
	file *rotatingFile
	// onLine is called (without mu held) for each new line.
	onLine func(Line)
}

// New returns the log of backend name: it keeps the recent lines in memory,
// appends each to the file at path (rotated as it grows) and calls onLine,
// if not nil, for each.
func New(name, path string, onLine func(Line)) *Log {
	return &Log{name: name, file: &rotatingFile{path: path, max: logMaxBytes, keep: logKeep}, onLine: onLine}
}

// Add records one line of output.
func (l *Log) Add(stream, text string) {
	if len(text) > MaxLineBytes {
		text = text[:MaxLineBytes] + " …(truncated)"
	}
	l.mu.Lock()
	l.seq++
	line := Line{Seq: l.seq, Time: time.Now(), Backend: l.name, Stream: stream, Text: text}
	if len(l.ring) < ringLines {
		l.ring = append(l.ring, line)
	} else {
		l.ring[l.next] = line
	}
	l.next = (l.next + 1) % ringLines
	l.file.writeLine(fmt.Sprintf("%s %s %s", line.Time.Format(time.RFC3339Nano), stream, text))
	l.mu.Unlock()
	if l.onLine != nil {
		l.onLine(line)
	}
}

// Since returns up to max lines with Seq > after, oldest first.
func (l *Log) Since(after uint64, max int) []Line {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Line
	n := len(l.ring)
	for i := 0; i < n; i++ {
		// Until the ring is full, next == n and this is just i.
		line := l.ring[(l.next+i)%n]
		if line.Seq > after {
			out = append(out, line)
		}
	}
	if max > 0 && len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}

// Tail returns the last n lines as plain text.
func (l *Log) Tail(n int) []string {
	lines := l.Since(0, n)
	out := make([]string, len(lines))
	for i, line := range lines {
		out[i] = line.Text
	}
	return out
}

// Close closes the log file; a later Add opens it again.
func (l *Log) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.file.close()
}

// rotatingFile appends lines to path, renaming it to path.1 (and .1 to .2,
// up to keep) when it passes max bytes. Write errors disable the file
// rather than the backend: logs are a convenience, supervision is not.
type rotatingFile struct {
	path string
	max  int64
	keep int
	f    *os.File
	size int64
	err  error
}

func (r *rotatingFile) writeLine(s string) {
	if r.err != nil {
		return
	}
	if r.f == nil {
		f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			r.err = err
			return
		}
		fi, _ := f.Stat()
		r.f, r.size = f, fi.Size()
	}
	if r.size+int64(len(s))+1 > r.max {
		r.rotate()
		if r.err != nil {
			return
		}
	}
	n, err := r.f.WriteString(strings.TrimRight(s, "\n") + "\n")
	r.size += int64(n)
	if err != nil {
		r.err = err
	}
}

func (r *rotatingFile) rotate() {
	r.f.Close()
	r.f = nil
	for i := r.keep - 1; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", r.path, i), fmt.Sprintf("%s.%d", r.path, i+1))
	}
	_ = os.Rename(r.path, r.path+".1")
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		r.err = err
		return
	}
	r.f, r.size = f, 0
}

func (r *rotatingFile) close() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}

// ReadLines calls fn for each line of r. Over-long lines are cut, never
// allowed to stall the reader (a stalled reader blocks the backend's writes).
func ReadLines(r io.Reader, fn func(string)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if len(long) < MaxLineBytes {
				long = append(long, chunk...)
			}
			continue
		case len(chunk) > 0 || len(long) > 0:
			line := strings.TrimRight(string(append(long, chunk...)), "\r\n")
			long = long[:0]
			fn(line)
		}
		if err != nil {
			return
		}
	}
}

// LauncherPath is the launcher's own log: beside the lock, not under logs/,
// where a backend of any valid name could take it.
func LauncherPath(stateDir string) string { return filepath.Join(stateDir, "launcher.log") }

// File is an io.Writer onto a size-rotated file (5 MiB, 3 kept), for the
// launcher's own log; each Write is one record and is never split across
// files.
type File struct {
	mu   sync.Mutex
	file *rotatingFile
}

// OpenFile returns a File appending to path; the file is opened on the
// first write.
func OpenFile(path string) *File {
	return &File{file: &rotatingFile{path: path, max: logMaxBytes, keep: logKeep}}
}

// Write appends p (one record); a write error disables the file, never
// the caller: logs are a convenience.
func (f *File) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.file.writeLine(string(p))
	return len(p), nil
}

// Close closes the file.
func (f *File) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.file.close()
}
