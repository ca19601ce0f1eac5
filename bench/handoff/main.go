//go:build linux

// Command handoff measures the backend's downtime across update handoffs:
// -n handoffs in each mode (restart, adopt) between two copies of the
// binary, with /api/health probed every 2 ms throughout. For each handoff
// the downtime is the span from the last good answer of the backend before
// it to the first good answer of the backend after it (the same backend in
// adopt mode, a new one in restart mode), and failed probes are counted.
//
// With -wine-exe (the Windows build, under a Wine prefix: bench/wine/run.sh
// passes both), the same handoffs of the Windows app under Wine follow, in
// the same table: on Windows an adopt handoff also hands the kill-on-close
// jobs over.
//
// Usage: go run ./bench/handoff [-n 20] [-wine-exe PATH]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/proc"
)

func main() {
	n := flag.Int("n", 20, "handoffs per mode")
	wineExe := flag.String("wine-exe", "", "the Windows build (Linux path), to run the same handoffs under Wine (needs WINEPREFIX)")
	flag.Parse()
	if *wineExe != "" && os.Getenv("WINEPREFIX") == "" {
		check(fmt.Errorf("-wine-exe needs a Wine prefix in WINEPREFIX (bench/wine/run.sh makes one)"))
	}
	dir, err := os.MkdirTemp("", "bench-handoff-")
	check(err)
	defer os.RemoveAll(dir)
	bin, err := testbin.Build(dir)
	check(err)
	platforms := []platform{{name: "", bin: bin, other: copyTo(bin, filepath.Join(dir, "next", "hermes-desktop"))}}
	if *wineExe != "" {
		platforms = append(platforms, platform{name: " (Wine)", wine: true,
			bin: copyTo(*wineExe, filepath.Join(dir, "win", "hermes-desktop.exe")), other: copyTo(*wineExe, filepath.Join(dir, "win-next", "hermes-desktop.exe"))})
	}

	fmt.Printf("handoff downtime of /api/health: %d handoffs per mode, probed every 2 ms\n\n", *n)
	fmt.Printf("%-15s %10s %10s %12s %14s %10s\n", "mode", "p50", "max", "failed", "handoff p50", "backend")
	for _, p := range platforms {
		for _, mode := range []string{"restart", "adopt"} {
			res := run(p, dir, mode, *n)
			slices.Sort(res.downtimes)
			slices.Sort(res.handoffs)
			fmt.Printf("%-15s %10s %10s %12s %14s %10s\n", mode+p.name, ms(res.downtimes[len(res.downtimes)/2]), ms(res.downtimes[len(res.downtimes)-1]),
				fmt.Sprintf("%d/%d", res.failed, res.probes), ms(res.handoffs[len(res.handoffs)/2]), res.backend)
		}
	}
	fmt.Println("\nfailed: probes that got no healthy answer / all probes; backend: whether the backend PID survived every handoff")
	fmt.Println("handoff: the `handoff` CLI call, start to exit (under Wine it includes Wine's start of the CLI)")
}

// platform is one build the handoffs run: the Linux one, or the Windows
// one under Wine; bin and other are the two copies handed over between.
type platform struct {
	name       string // the rows' suffix
	wine       bool
	bin, other string
}

// copyTo copies the file src to dst (the "new version") and returns dst.
func copyTo(src, dst string) string {
	check(os.MkdirAll(filepath.Dir(dst), 0o755))
	data, err := os.ReadFile(src)
	check(err)
	check(os.WriteFile(dst, data, 0o755))
	return dst
}

type result struct {
	downtimes, handoffs []time.Duration
	failed, probes      int64
	backend             string
}

// instance is the headless launcher one run started, on a state dir of its
// own.
type instance struct {
	bin, state, mode string
	wine             bool // bin is the Windows build, run under Wine
	env              []string
}

// command is exe (a copy of the build) with args and the state dir.
func (in *instance) command(exe string, args ...string) *exec.Cmd {
	if !in.wine {
		return exec.Command(exe, append(args, "--state-dir", in.state)...)
	}
	return exec.Command(testbin.WineLoader, append(append([]string{testbin.WinPath(exe)}, args...), "--state-dir", testbin.WinPath(in.state))...)
}

// cli runs a hermes-desktop subcommand against the instance.
func (in *instance) cli(args ...string) ([]byte, error) {
	c := in.command(in.bin, args...)
	c.Env = in.env
	return c.Output()
}

// readyURL waits until the instance's one backend is ready and returns its
// health URL and PID.
func (in *instance) readyURL() (string, int) {
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		out, err := in.cli("status", "--json")
		var st model.Status
		if err == nil && json.Unmarshal(out, &st) == nil && len(st.Backends) == 1 && st.Backends[0].State == model.StateReady {
			return st.Backends[0].URL + hermes.StatusPath, st.Backends[0].PID // public: no token needed
		}
	}
	check(fmt.Errorf("%s: no ready backend", in.mode))
	return "", 0
}

func run(p platform, dir, mode string, n int) result {
	tag := testbin.NewTag()
	in := &instance{bin: p.bin, state: filepath.Join(dir, mode+strings.TrimSpace(p.name)), mode: mode, wine: p.wine}
	home := filepath.Join(in.state, "home")
	if p.wine {
		home = testbin.WinPath(home)
	}
	in.env = testbin.NewEnv(tag, home)
	cmd := in.command(p.bin, "run", "--headless", "--grace", "2s")
	cmd.Env = in.env
	check(cmd.Start())
	defer func() {
		_, _ = in.cli("stop")
		sweep(tag)
	}()
	var res result
	current, firstPID := in.readyURL()
	samePID := true
	var cur atomic.Pointer[string]
	cur.Store(&current)
	client := &http.Client{Timeout: 500 * time.Millisecond}
	bins := []string{p.bin, p.other}
	for i := 1; i <= n; i++ {
		pid := in.handoffProbed(i, bins[i%2], client, &cur, &res)
		samePID = samePID && pid == firstPID
	}
	res.backend = "new"
	if samePID {
		res.backend = "kept"
	}
	return res
}

// handoffProbed hands the instance over to the binary to while a prober
// probes the health URL in cur, which it then points at the new one; it
// adds the handoff's time and the downtime the prober saw to res, and
// returns the backend's PID after the handoff.
func (in *instance) handoffProbed(i int, to string, client *http.Client, cur *atomic.Pointer[string], res *result) int {
	pr := &prober{client: client, cur: cur, res: res}
	pr.lastOK.Store(time.Now().UnixNano())
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); pr.run(ctx) }()
	t0 := time.Now()
	if in.wine {
		to = testbin.WinPath(to)
	}
	if out, err := in.cli("handoff", "--to", to, "--mode", in.mode, "--timeout", "30s"); err != nil {
		check(fmt.Errorf("%s handoff %d: %v %s", in.mode, i, err, out))
	}
	res.handoffs = append(res.handoffs, time.Since(t0))
	next, pid := in.readyURL()
	if os.Getenv("BENCH_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "%s %d: pid %d url %s failed so far %d\n", in.mode, i, pid, next, atomic.LoadInt64(&res.failed))
	}
	cur.Store(&next)
	pr.handedOff.Store(true)
	for deadline := time.Now().Add(10 * time.Second); pr.firstOKAfter.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	<-done
	res.downtimes = append(res.downtimes, time.Duration(pr.firstOKAfter.Load()-pr.lastOK.Load()))
	return pid
}

// prober probes the current health URL every 2 ms until its context ends,
// counting failures and noting the last success before the handoff and the
// first after it.
type prober struct {
	client               *http.Client
	cur                  *atomic.Pointer[string]
	res                  *result
	handedOff            atomic.Bool
	lastOK, firstOKAfter atomic.Int64
}

func (p *prober) run(ctx context.Context) {
	for ctx.Err() == nil {
		resp, err := p.client.Get(*p.cur.Load())
		ok := err == nil && resp.StatusCode == 200
		if resp != nil {
			resp.Body.Close()
		}
		atomic.AddInt64(&p.res.probes, 1)
		now := time.Now().UnixNano()
		switch {
		case !ok:
			atomic.AddInt64(&p.res.failed, 1)
		case !p.handedOff.Load():
			p.lastOK.Store(now)
		case p.firstOKAfter.Load() == 0:
			p.firstOKAfter.Store(now)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// sweep kills whatever still carries this run's tag: only what this run
// started carries it.
func sweep(tag string) {
	for _, pid := range testbin.WaitUntagged(tag, 5*time.Second) {
		if id, err := proc.Lookup(pid); err == nil {
			_ = proc.Signal(id, syscall.SIGKILL)
		}
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/1e6) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "handoff:", strings.TrimSpace(err.Error()))
		os.Exit(1)
	}
}
