// Command diagnose times the diagnostic report (backend/diagnose) on a
// state dir as full as the caps let it get: 3 backends, each log at its
// 5 MiB rotation size with its 3 rotated files, and the launcher log, a
// line in every 50 carrying a token to redact. It prints the time to write
// the report (median of -runs), the archive's size and what it holds, next
// to the state's own size, in one run.
//
// Usage: go run ./bench/diagnose [-runs 5]
package main

import (
	"archive/zip"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"hermes-desktop/backend/diagnose"
	"hermes-desktop/backend/model"
)

func main() {
	runs := flag.Int("runs", 5, "timed runs")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-diagnose-")
	check(err)
	defer os.RemoveAll(dir)
	stateBytes := fill(dir)
	st := &model.Status{Instance: model.InstanceInfo{PID: os.Getpid(), UI: "headless"},
		Backends: []model.BackendStatus{{Name: "a"}, {Name: "b"}, {Name: "c"}}}
	var times []time.Duration
	var out bytes.Buffer
	var sum diagnose.Summary
	for range *runs {
		out.Reset()
		start := time.Now()
		sum, err = diagnose.Write(&out, diagnose.Input{StateDir: dir, Status: st, Version: "bench", Now: time.Now()})
		check(err)
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	z, err := zip.NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
	check(err)
	fmt.Printf("diagnostic report of a full state (3 backends, every log at its cap, %d runs)\n\n", *runs)
	fmt.Printf("%-34s %12s\n", "state dir (logs and config)", mib(stateBytes))
	fmt.Printf("%-34s %12s\n", "read into the report (uncompressed)", mib(sum.Bytes))
	fmt.Printf("%-34s %12s   (%.1f%% of the state)\n", "archive (zip)", mib(int64(out.Len())), 100*float64(out.Len())/float64(stateBytes))
	fmt.Printf("%-34s %12s   (min %s, max %s)\n", "time to write, median", times[len(times)/2].Round(time.Millisecond), times[0].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond))
	fmt.Printf("%-34s %12d   (%d left out at the %d MiB cap)\n", "files in the archive", len(z.File), len(sum.Skipped), diagnose.MaxTotalBytes>>20)
	if strings.Contains(out.String(), "benchsecret") {
		fmt.Println("A SECRET REACHED THE ARCHIVE")
		os.Exit(1)
	}
}

// fill writes the logs and returns the state's size.
func fill(dir string) int64 {
	var total int64
	write := func(rel string, size int) {
		p := filepath.Join(dir, rel)
		check(os.MkdirAll(filepath.Dir(p), 0o700))
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			if i%50 == 0 {
				fmt.Fprintf(&b, "2026-12-03T10:00:00Z stdout GET /api/status X-Hermes-Session-Token: benchsecret%d\n", i)
				continue
			}
			fmt.Fprintf(&b, "2026-12-03T10:00:00Z stderr 127.0.0.1 - - [03/Dec/2026 10:00:00] \"GET /api/status HTTP/1.1\" 200 - line %d\n", i)
		}
		check(os.WriteFile(p, []byte(b.String()), 0o600))
		total += int64(b.Len())
	}
	for _, name := range []string{"a", "b", "c"} {
		write("logs/"+name+".log", 5<<20)
		for i := 1; i <= 3; i++ {
			write(fmt.Sprintf("logs/%s.log.%d", name, i), 5<<20)
		}
	}
	write("launcher.log", 1<<20)
	check(os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"backends":[{"name":"a","kind":"dashboard"},{"name":"b","kind":"serve"},{"name":"c","kind":"custom","command":"srv --token benchsecret"}]}`), 0o600))
	return total
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/diagnose:", err)
		os.Exit(1)
	}
}
