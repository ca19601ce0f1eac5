package backend

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// LogLine is one line a backend printed.
type LogLine struct {
	// Seq increases by one per line of the same backend, so a reader can ask
	// for what came after the last line it saw.
	Seq     uint64    `json:"seq"`
	Time    time.Time `json:"time"`
	Backend string    `json:"backend"`
	Stream  string    `json:"stream"` // "stdout", "stderr" or "launcher"
	Text    string    `json:"text"`
}

// Log size limits.
const (
	ringLines    = 2000
	maxLineBytes = 16 << 10
	logMaxBytes  = 5 << 20
	logKeep      = 3
)

// backendLog keeps a backend's output twice: a ring buffer of recent lines
// for the UI and status, and a size-rotated file under <state>/logs.
type backendLog struct {
	name string
	mu   sync.Mutex // guards everything below
	ring []LogLine
	next int // ring index of the next write
	seq  uint64
	file *rotatingFile
	// onLine is called (without mu held) for each new line.
	onLine func(LogLine)
}

func newBackendLog(name, path string, onLine func(LogLine)) *backendLog {
	return &backendLog{name: name, file: &rotatingFile{path: path, max: logMaxBytes, keep: logKeep}, onLine: onLine}
}

// add records one line of output.
func (l *backendLog) add(stream, text string) {
	if len(text) > maxLineBytes {
		text = text[:maxLineBytes] + " …(truncated)"
	}
	l.mu.Lock()
	l.seq++
	line := LogLine{Seq: l.seq, Time: time.Now(), Backend: l.name, Stream: stream, Text: text}
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

// since returns up to max lines with Seq > after, oldest first.
func (l *backendLog) since(after uint64, max int) []LogLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []LogLine
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

// tail returns the last n lines as plain text.
func (l *backendLog) tail(n int) []string {
	lines := l.since(0, n)
	out := make([]string, len(lines))
	for i, line := range lines {
		out[i] = line.Text
	}
	return out
}

func (l *backendLog) close() {
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
