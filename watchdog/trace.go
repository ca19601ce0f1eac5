package watchdog

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// EnvTrace names a file the shim appends timestamped lifecycle events to
// ("shim-main", "released", "backend-started", "parent-gone", "term-sent",
// "kill-sent", "tree-empty"), one per line as
// "<unix nanoseconds> <pid> <event> <detail>". Benchmarks use it to split a
// teardown's latency into detection, signalling and the tree's own exit.
const EnvTrace = "HERMES_DESKTOP_WATCHDOG_TRACE"

var traceMu sync.Mutex // guards trace file appends from concurrent goroutines

func trace(event, detail string) {
	path := os.Getenv(EnvTrace)
	if path == "" {
		return
	}
	now := time.Now().UnixNano()
	traceMu.Lock()
	defer traceMu.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%d %d %s %s\n", now, os.Getpid(), event, detail)
	f.Close()
}
