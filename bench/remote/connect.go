//go:build linux

package main

import (
	"fmt"
	"os/exec"
	"time"

	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/internal/testbin"
)

// connect: `run` -> ready, remote vs local vs raw ssh, interleaved.
func (e *bench) connect(n int) {
	cold, _ := e.connectOnce([]settings.Backend{remoteServe("far")}, 1) // uploads the core
	_, _ = e.connectOnce([]settings.Backend{{Name: "near", Kind: settings.KindServe}}, 1)
	var remote, local, raw []time.Duration
	for i := 0; i < n; i++ {
		d, _ := e.connectOnce([]settings.Backend{remoteServe("far")}, 1)
		remote = append(remote, d)
		d, _ = e.connectOnce([]settings.Backend{{Name: "near", Kind: settings.KindServe}}, 1)
		local = append(local, d)
		raw = append(raw, e.rawSSH())
	}
	rawP50, rawP90 := p50p90(raw)
	localP50, localP90 := p50p90(local)
	remoteP50, remoteP90 := p50p90(remote)
	fmt.Println("connect -> backend ready (app start to its ready line; ssh: exec to exit)")
	fmt.Printf("%-50s %9s %9s %9s %9s\n", "case", "p50", "p90", "x local", "x ssh")
	row := func(name string, a, b time.Duration) {
		fmt.Printf("%-50s %9s %9s %8.2fx %8.2fx\n", name, fd(a), fd(b), ratio(a, localP50), ratio(a, rawP50))
	}
	row("raw `ssh -F cfg sshtest true`, fresh connection", rawP50, rawP90)
	row("local serve backend (no host)", localP50, localP90)
	row("remote serve backend (host sshtest)", remoteP50, remoteP90)
	fmt.Printf("%-50s %9s %9s %8.2fx %8.2fx\n", "first remote connect (core upload), 1 run", fd(cold), "", ratio(cold, localP50), ratio(cold, rawP50))
	fmt.Printf("%-50s %9s\n", "remote overhead over local (p50 difference)", fd(remoteP50-localP50))
}

// connectOnce starts an app with backends, times it to the last ready
// line, counts sshd's authentications meanwhile, and stops it.
func (e *bench) connectOnce(backends []settings.Backend, want int) (time.Duration, int) {
	auth0 := e.srv.Authentications()
	a, err := e.startApp(backends, "")
	check(e.tb, err)
	d, err := a.waitReady(want, readyWait)
	if err != nil {
		e.finish("connect", a)
		e.tb.Fatalf("connect: %v", err)
	}
	auths := e.srv.Authentications() - auth0
	e.finish("connect", a)
	return d, auths
}

func (e *bench) rawSSH() time.Duration {
	t0 := time.Now()
	out, err := exec.Command("ssh", "-F", e.srv.ClientConfig, "-o", "BatchMode=yes", "-o", "ControlMaster=no", "-o", "ControlPath=none", sshtest.Alias, "true").CombinedOutput()
	d := time.Since(t0)
	if err != nil {
		e.tb.Fatalf("ssh %s true: %v: %s", sshtest.Alias, err, out)
	}
	return d
}

// authentications per connect, for 1 and for 3 backends on one host.
func (e *bench) authentications() {
	fmt.Println("authentications per connect (sshd's \"Accepted publickey\" while the app starts its backends)")
	fmt.Printf("%-50s %9s %9s %9s\n", "case", "min", "max", "to ready")
	for _, k := range []int{1, 3} {
		var backends []settings.Backend
		for i := 0; i < k; i++ {
			backends = append(backends, remoteServe(fmt.Sprintf("far%d", i)))
		}
		lo, hi := 1<<30, 0
		var ds []time.Duration
		for r := 0; r < 3; r++ {
			d, auths := e.connectOnce(backends, k)
			lo, hi = min(lo, auths), max(hi, auths)
			ds = append(ds, d)
		}
		p50, _ := p50p90(ds)
		fmt.Printf("%-50s %9d %9d %9s\n", fmt.Sprintf("%d serve backend(s) on one host, 3 connects", k), lo, hi, fd(p50))
	}
}

// sigkill: SIGKILL the app, time until the remote backend and its remote
// watchdog are gone, and until the remote has nothing of the run left.
func (e *bench) sigkill(n int) {
	var tree, backend, clean []time.Duration
	for i := 0; i < n; i++ {
		a, err := e.startApp([]settings.Backend{remoteServe("far")}, "")
		check(e.tb, err)
		if _, err := a.waitReady(1, readyWait); err != nil {
			e.finish("sigkill", a)
			e.tb.Fatalf("sigkill: %v", err)
		}
		b, err := e.remoteRun(a)
		if err != nil {
			e.finish("sigkill", a)
			e.tb.Fatalf("sigkill: %v", err)
		}
		fds := testbin.OpenPidfds([]int{b.PID, b.ShimPID})
		t0 := time.Now()
		_ = a.cmd.Process.Kill()
		gone := testbin.WaitPidfds(fds, 30*time.Second)
		testbin.ClosePidfds(fds)
		bt, st := since(t0, gone, b.PID), since(t0, gone, b.ShimPID)
		if bt == testbin.Never || st == testbin.Never {
			e.note("sigkill: remote backend %d or its watchdog %d still there 30s after the app's SIGKILL", b.PID, b.ShimPID)
		}
		backend = append(backend, bt)
		tree = append(tree, max(bt, st))
		left := e.srv.WaitClean(10 * time.Second)
		if len(left) == 0 {
			clean = append(clean, time.Since(t0))
		} else {
			clean = append(clean, testbin.Never)
		}
		e.finish("sigkill", a)
	}
	fmt.Println("app SIGKILL -> remote tree gone (pidfds on the remote's processes)")
	fmt.Printf("%-50s %9s %9s %9s\n", "what is gone", "p50", "p99", "max")
	for _, r := range []struct {
		name string
		ds   []time.Duration
	}{
		{"remote backend", backend},
		{"remote backend and its remote watchdog", tree},
		{"every process of the run on the remote (sshd too)", clean},
	} {
		p50, p99, mx := testbin.Quantiles(r.ds)
		fmt.Printf("%-50s %9s %9s %9s\n", r.name, fd(p50), fd(p99), fd(mx))
	}
}
