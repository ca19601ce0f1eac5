package testbin

import (
	"strings"
	"sync"
)

// Buffer collects what a run writes from its goroutines while the test
// reads it: a strings.Builder behind a mutex.
type Buffer struct {
	mu sync.Mutex // guards b
	b  strings.Builder
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
