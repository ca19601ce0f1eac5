package backend

import (
	"os"
	"path/filepath"
	"sync"

	"hermes-desktop/backend/model"
	"hermes-desktop/contract/logs"
)

// backendLogs are the backends' logs, by name: a ring for the window and a
// file under <state dir>/logs each, every line published as an event.
type backendLogs struct {
	dir    string        // <state dir>/logs
	events *model.Broker // where each line is published

	mu     sync.Mutex // guards byName
	byName map[string]*logs.Log
}

func newBackendLogs(stateDir string, events *model.Broker) backendLogs {
	return backendLogs{dir: filepath.Join(stateDir, "logs"), events: events, byName: map[string]*logs.Log{}}
}

// of returns (creating it on first use) the log of a backend.
func (b *backendLogs) of(name string) *logs.Log {
	b.mu.Lock()
	defer b.mu.Unlock()
	if lg := b.byName[name]; lg != nil {
		return lg
	}
	_ = os.MkdirAll(b.dir, 0o700)
	lg := logs.New(name, filepath.Join(b.dir, name+".log"), func(line logs.Line) {
		b.events.Publish(model.Event{Kind: model.EventLog, Log: &line})
	})
	b.byName[name] = lg
	return lg
}

// closeAll closes every log.
func (b *backendLogs) closeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, lg := range b.byName {
		lg.Close()
	}
}
