//go:build linux

// Command corebin measures, side by side, what a process the launcher
// starts from its own code (the watchdog shim, the built-in backend) costs
// when it runs the desktop binary, which links GTK and WebKitGTK, and when
// it runs the plain core that binary carries (backend/corebin):
//
//   - exec: `version` run -n times from each, interleaved; CPU time (user +
//     system, from the child's rusage) and wall time per run;
//   - resident memory of the built-in backend (`serve`) started from
//     each, once ready: RSS and its private part (Private_Clean +
//     Private_Dirty of /proc/PID/smaps_rollup).
//
// The core is the one `make gui` embedded in that binary
// (backend/corebin/payload), unpacked here and checked against its digest.
//
// Usage: go run ./bench/corebin [-gui build/bin/hermes-desktop] [-n 50]
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"hermes-desktop/contract/hermes"
)

const payloadDir = "backend/corebin/payload"

func main() {
	gui := flag.String("gui", "build/bin/hermes-desktop", "the desktop binary (make gui)")
	n := flag.Int("n", 50, "runs of `version` per binary")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-corebin-")
	if err != nil {
		fail(err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	defer cleanup()
	core, err := unpackCore(dir)
	if err != nil {
		fail(err)
	}
	bins := []struct{ name, path string }{{"desktop binary", *gui}, {"core", core}}
	cpu := make([][]time.Duration, len(bins))
	wall := make([][]time.Duration, len(bins))
	for i := 0; i < *n; i++ {
		for b, bin := range bins {
			c, w, err := timeVersion(bin.path)
			if err != nil {
				fail(err)
			}
			cpu[b], wall[b] = append(cpu[b], c), append(wall[b], w)
		}
	}
	fmt.Printf("exec of `version`, %d runs each, interleaved (median, p90):\n", *n)
	for b, bin := range bins {
		fmt.Printf("  %-15s CPU %7.2f ms, %7.2f ms   wall %7.2f ms, %7.2f ms\n", bin.name,
			ms(pct(cpu[b], 50)), ms(pct(cpu[b], 90)), ms(pct(wall[b], 50)), ms(pct(wall[b], 90)))
	}
	fmt.Printf("  ratio (CPU median): %.1fx\n", float64(pct(cpu[0], 50))/float64(pct(cpu[1], 50)))
	fmt.Println("built-in backend (`serve`), once ready:")
	for _, bin := range bins {
		rss, private, err := serveMemory(bin.path)
		if err != nil {
			fail(err)
		}
		fmt.Printf("  %-15s RSS %6.1f MB, private %6.1f MB\n", bin.name, float64(rss)/1e6, float64(private)/1e6)
	}
}

// unpackCore writes the embedded core into dir after checking its digest.
func unpackCore(dir string) (string, error) {
	want, err := os.ReadFile(filepath.Join(payloadDir, "hermes-desktop-core.sha256"))
	if err != nil {
		return "", fmt.Errorf("no core payload (make gui writes it): %w", err)
	}
	f, err := os.Open(filepath.Join(payloadDir, "hermes-desktop-core.gz"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return "", err
	}
	if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != strings.TrimSpace(string(want)) {
		return "", fmt.Errorf("the core payload does not match its digest")
	}
	path := filepath.Join(dir, "hermes-desktop-core-bench")
	return path, os.WriteFile(path, data, 0o700)
}

// timeVersion runs `bin version` once: the child's CPU time and the wall
// time from start to exit.
func timeVersion(bin string) (cpu, wall time.Duration, err error) {
	cmd := exec.Command(bin, "version")
	t0 := time.Now()
	if out, err := cmd.Output(); err != nil || !bytes.HasPrefix(out, []byte("hermes-desktop ")) {
		return 0, 0, fmt.Errorf("%s version: %q, %v", bin, out, err)
	}
	wall = time.Since(t0)
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), wall, nil
}

// serveMemory starts `bin serve` on an ephemeral loopback port, waits for
// its ready line, and reads its memory.
func serveMemory(bin string) (rss, private int64, err error) {
	cmd := exec.Command(bin, hermes.LocalArgs(hermes.VerbServe)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), hermes.ServeReadyPrefix) {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }() // ends when the child does
	time.Sleep(200 * time.Millisecond)              // settled after its first requests
	data, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/smaps_rollup")
	if err != nil {
		return 0, 0, err
	}
	kb := map[string]int64{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[2] == "kB" {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			kb[strings.TrimSuffix(f[0], ":")] = v * 1024
		}
	}
	if kb["Rss"] == 0 {
		return 0, 0, fmt.Errorf("%s serve: no Rss in smaps_rollup", bin)
	}
	return kb["Rss"], kb["Private_Clean"] + kb["Private_Dirty"], nil
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// cleanup removes the temporary directory; fail runs it too, since
// os.Exit skips defers.
var cleanup = func() {}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "corebin:", err)
	cleanup()
	os.Exit(1)
}
