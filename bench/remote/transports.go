//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/settings"
)

// The transports side by side (issue 33): the build of an older revision
// whose transport is a ControlMaster with one mux client per remote command
// (-old-bin, or -old-rev built here), and this tree's one ssh session per
// host carrying the mux; each connects a serve backend and restarts it,
// interleaved. Counted per connect and per restart: sshd's authentications,
// the ssh clients the app started (sshwrap.go), and the remote commands:
// the ssh clients that carried one, plus the commands the session's mux
// server forked (procevents.go). Hermes' one connection per command (as
// on Windows, NousResearch/hermes-agent #84452) authenticates once per
// remote command: that row is each transport's remote commands.

// flavour is one transport's build.
type flavour struct{ name, bin, cores string }

// tally holds one flavour's figures, one entry a run.
type tally struct {
	ready, restart []time.Duration
	auths, clients [2][]int // [0] per connect, [1] per restart
	commands       [2][]int
}

// settle is how long after ready the counts wait, so that what the app
// does right after a backend is ready (forwards, the first sample) counts.
const settle = time.Second

// transports prints the side-by-side table, n connects and restarts each.
func (e *bench) transports(n int) {
	var fl []flavour
	if e.oldBin != "" {
		fl = append(fl, flavour{"ControlMaster " + e.oldName, e.oldBin, e.oldCores})
	}
	fl = append(fl, flavour{"one session + mux (this tree)", e.bin, e.cores})
	t := make([]*tally, len(fl))
	for i, f := range fl {
		t[i] = &tally{}
		e.cycle(f, nil) // the first connect uploads the core: not counted
	}
	for r := 0; r < n; r++ {
		for i, f := range fl {
			e.cycle(f, t[i])
		}
	}
	fmt.Printf("transports side by side: a serve backend on the ssh host, %d connects and %d restarts (`restart --backend`) each, interleaved\n", n, n)
	if e.oldBin == "" {
		fmt.Println("(no old build given: -old-bin PATH or -old-rev REV; the new transport's rows alone)")
	}
	fmt.Printf("%-58s", "measure")
	for _, f := range fl {
		fmt.Printf(" %30s", f.name)
	}
	fmt.Println()
	row := func(name string, cell func(*tally) string) {
		fmt.Printf("%-58s", name)
		for _, x := range t {
			fmt.Printf(" %30s", cell(x))
		}
		fmt.Println()
	}
	row("connect -> ready p50 / p90", func(x *tally) string { a, b := p50p90(x.ready); return fd(a) + " / " + fd(b) })
	row("restart -> ready again p50 / p90", func(x *tally) string { a, b := p50p90(x.restart); return fd(a) + " / " + fd(b) })
	for k, what := range []string{"connect", "restart"} {
		row("authentications per "+what, func(x *tally) string { return spread(x.auths[k]) })
		row("ssh clients started locally per "+what, func(x *tally) string { return spread(x.clients[k]) })
		row("remote commands per "+what, func(x *tally) string { return spread(x.commands[k]) })
		row("  = authentications, one connection per command, per "+what, func(x *tally) string { return spread(x.commands[k]) })
	}
	fmt.Println("(counts: min-max over the runs, taken 1 s after ready; authentications: sshd's \"Accepted publickey\";")
	fmt.Println(" ssh clients: every ssh the app ran (-G, master, -O requests, commands); remote commands: the ssh clients")
	fmt.Println(" that carried a command (the new session's is its bootstrap) plus the commands the mux server forked;")
	fmt.Println(" one connection per command: Hermes on Windows (NousResearch/hermes-agent #84452), a prompt each for a hardware key or 2FA)")
	if lost := e.forks.overruns(); lost > 0 {
		e.note("the kernel's process events overran %d times: some forks may be uncounted", lost)
	}
}

// cycle connects a serve backend with f's build, restarts it, and adds
// the figures to t (nil: only run).
func (e *bench) cycle(f flavour, t *tally) {
	auth0, ssh0, fork0 := e.srv.Authentications(), e.sshMark(), e.forks.mark()
	a, err := e.launch(f.bin, f.cores, settings.Settings{Backends: []settings.Backend{remoteServe("far")}, SSHConfig: e.srv.ClientConfig})
	check(e.tb, err)
	defer e.finish("transports", a)
	d, err := a.waitReady(1, readyWait)
	if err != nil {
		e.tb.Fatalf("transports, %s: %v", f.name, err)
	}
	time.Sleep(settle)
	mux := e.muxServers()
	c := e.spanCounts(auth0, ssh0, fork0, mux)
	before, err := a.backend("far")
	check(e.tb, err)
	auth1, ssh1, fork1 := e.srv.Authentications(), e.sshMark(), e.forks.mark()
	rd, err := a.restart("far", before.PID)
	if err != nil {
		e.tb.Fatalf("transports, %s: %v", f.name, err)
	}
	time.Sleep(settle)
	r := e.spanCounts(auth1, ssh1, fork1, mux)
	if t == nil {
		return
	}
	t.ready, t.restart = append(t.ready, d), append(t.restart, rd)
	for k, s := range [2]spanCount{c, r} {
		t.auths[k] = append(t.auths[k], s.auths)
		t.clients[k] = append(t.clients[k], s.ssh.clients)
		t.commands[k] = append(t.commands[k], s.ssh.commands+s.muxed)
	}
}

// spanCount is what one connect or restart cost.
type spanCount struct {
	auths int
	ssh   sshCalls
	muxed int // commands the mux server forked
}

func (e *bench) spanCounts(auth0, ssh0, fork0 int, mux []int) spanCount {
	return spanCount{auths: e.srv.Authentications() - auth0, ssh: e.sshSince(ssh0), muxed: e.forks.childrenOf(mux, fork0)}
}

// muxServers are the PIDs of the remote core's mux servers now running
// (none with the old build).
func (e *bench) muxServers() []int {
	var pids []int
	for _, p := range e.srv.Processes() {
		f := strings.Fields(p.Args)
		if len(f) > 1 && strings.Contains(f[0], "hermes-desktop-core") && f[1] == "mux" {
			pids = append(pids, p.PID)
		}
	}
	return pids
}

// restart runs `restart --backend name` and returns how long until the
// status shows a new PID for it, ready and connected.
func (a *app) restart(name string, was int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), readyWait)
	defer cancel()
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, a.bin, "restart", "--backend", name, "--state-dir", a.state)
	cmd.Env = a.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("restart --backend %s: %w: %s", name, err, out)
	}
	for time.Since(t0) < readyWait {
		b, err := a.backend(name)
		if err == nil && b.PID != was && b.PID != 0 && b.State == model.StateReady && b.Remote != nil && b.Remote.Connection == "connected" {
			return time.Since(t0), nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, fmt.Errorf("restart --backend %s: not ready with a new PID after %v", name, readyWait)
}

// spread is "a" when every run gave a, else "min-max".
func spread(xs []int) string {
	if len(xs) == 0 {
		return "-"
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// buildOld builds the app at git revision rev (a temporary worktree of
// the repository, removed after) into dir and returns its path and the
// revision's short name.
func buildOld(dir, rev string) (string, string, error) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", "", fmt.Errorf("old build: git rev-parse: %w", err)
	}
	repo := strings.TrimSpace(string(top))
	short, err := exec.Command("git", "-C", repo, "rev-parse", "--short", rev).Output()
	if err != nil {
		return "", "", fmt.Errorf("old build: no revision %q: %w", rev, err)
	}
	src := filepath.Join(dir, "old-src")
	if out, err := exec.Command("git", "-C", repo, "worktree", "add", "--detach", src, rev).CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("old build: git worktree add: %w: %s", err, out)
	}
	defer func() {
		_ = exec.Command("git", "-C", repo, "worktree", "remove", "--force", src).Run()
	}()
	bin := filepath.Join(dir, "hermes-desktop-old")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir, cmd.Env = src, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("old build: go build at %s: %w: %s", rev, err, out)
	}
	return bin, strings.TrimSpace(string(short)), nil
}
