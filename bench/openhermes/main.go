//go:build linux

// Command openhermes times what a person waits for after a double click:
// from starting the app (headless, the default backend: the built-in
// dashboard, as when hermes is not installed) to Open Hermes' page
// answering 200 text/html. Side by side in one run with the same page
// started directly (`hermes-desktop dashboard`, no launcher, no shim, no
// boot reap): the launcher's share of the wait.
//
// Usage: go run ./bench/openhermes [-n 20]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/proc"
)

func main() {
	n := flag.Int("n", 20, "runs per case")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-openhermes-")
	check(err)
	defer os.RemoveAll(dir)
	bin, err := testbin.Build(dir)
	check(err)
	fmt.Printf("launch to Open Hermes' page answering (200 text/html), %d runs each, built-in dashboard\n\n", *n)
	fmt.Printf("%-56s %10s %10s %10s\n", "case", "p50", "p90", "max")
	var app, direct []time.Duration
	for i := 0; i < *n; i++ {
		app = append(app, viaApp(bin, filepath.Join(dir, fmt.Sprint("app", i))))
		direct = append(direct, directly(bin, filepath.Join(dir, fmt.Sprint("direct", i))))
	}
	row("hermes-desktop (launcher, shim, boot reap, open --print)", app)
	row("hermes-desktop dashboard alone (no launcher)", direct)
	fmt.Printf("\nlauncher's share of the wait: %.1f ms at p50 (%.2fx)\n",
		ms(p(app, 50)-p(direct, 50)), float64(p(app, 50))/float64(p(direct, 50)))
}

// viaApp starts the app and polls `open --print` until it names a page,
// then the page until it answers.
func viaApp(bin, dir string) time.Duration {
	tag := testbin.NewTag()
	env := append(testbin.NewEnv(tag, filepath.Join(dir, "home")), "PATH=/usr/bin:/bin") // no hermes: the built-in
	state := filepath.Join(dir, "state")
	t0 := time.Now()
	cmd := exec.Command(bin, "run", "--headless", "--state-dir", state)
	cmd.Env = env
	check(cmd.Start())
	defer stop(bin, state, env, cmd, tag)
	for {
		out, err := command(bin, env, "open", "--print", "--state-dir", state)
		if url := strings.TrimSpace(out); err == nil && url != "" && pageAnswers(url) {
			return time.Since(t0)
		}
		if time.Since(t0) > 30*time.Second {
			check(fmt.Errorf("no page after 30 s"))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

var readyLine = regexp.MustCompile(regexp.QuoteMeta(hermes.DashboardReadyPrefix) + `(\d+)`)

// directly starts the built-in dashboard alone and waits for its page.
func directly(bin, dir string) time.Duration {
	tag := testbin.NewTag()
	t0 := time.Now()
	cmd := exec.Command(bin, hermes.LocalArgs(hermes.VerbDashboard)...)
	cmd.Env = testbin.NewEnv(tag, filepath.Join(dir, "home"))
	out, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); sweep(tag) }()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := readyLine.FindStringSubmatch(sc.Text()); m != nil {
			for url := "http://127.0.0.1:" + m[1] + "/"; !pageAnswers(url); {
				time.Sleep(2 * time.Millisecond)
			}
			d := time.Since(t0)
			go func() { _, _ = io.Copy(io.Discard, out) }() // ends when the process does
			return d
		}
	}
	check(fmt.Errorf("the dashboard never said ready"))
	return 0
}

func pageAnswers(url string) bool {
	resp, err := http.Get(url)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode == 200 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html")
}

func command(bin string, env []string, args ...string) (string, error) {
	c := exec.Command(bin, args...)
	c.Env = env
	out, err := c.Output()
	return string(out), err
}

// stop stops the app and sweeps what still carries this run's tag (only
// what this run started carries it).
func stop(bin, state string, env []string, cmd *exec.Cmd, tag string) {
	_, _ = command(bin, env, "stop", "--state-dir", state)
	_ = cmd.Wait()
	sweep(tag)
}

func sweep(tag string) {
	for _, pid := range testbin.WaitUntagged(tag, 5*time.Second) {
		if id, err := proc.Lookup(pid); err == nil {
			_ = proc.Signal(id, syscall.SIGKILL)
		}
	}
}

func row(name string, ds []time.Duration) {
	fmt.Printf("%-56s %8.1fms %8.1fms %8.1fms\n", name, ms(p(ds, 50)), ms(p(ds, 90)), ms(p(ds, 100)))
}

func p(ds []time.Duration, q int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s) - 1) * q / 100
	return s[i]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "openhermes:", err)
		os.Exit(1)
	}
}
