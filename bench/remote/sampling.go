//go:build linux

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/sshtest"
)

// The sampling cost on the remote: CPU time the remote core's processes
// (the remote watchdog that samples, and the session's mux server where
// there is one) use per minute while a backend with a tree of 20
// processes runs, with every 5 s (the default), as good as off (every
// hour) and every second, side by side. The "remote" is this
// machine, so its processes' CPU times are read from /proc.

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times (100 on every
// Linux architecture Go builds for).
const clockTicks = 100

// samplingCost prints one row per sampling interval.
func (e *bench) samplingCost(window time.Duration) {
	fmt.Printf("sampling cost on the remote (a serve backend and 19 children; CPU of the remote core's processes over %s)\n", window)
	fmt.Printf("%-30s %10s %14s %14s %12s\n", "sampling", "processes", "CPU-s/min", "x every 5s", "per sample")
	var base float64
	for _, every := range []string{"5s", "1h", "1s"} {
		cpu, procs, err := e.remoteCoreCPU(every, window)
		if err != nil {
			e.note("sampling cost at %s: %v", every, err)
			continue
		}
		perMin := cpu.Seconds() / window.Minutes()
		if every == "5s" {
			base = perMin
		}
		per := "-"
		if d, _ := time.ParseDuration(every); d < window {
			per = fd(time.Duration(float64(cpu) / float64(window/d)))
		}
		x := "-"
		if base > 0 {
			x = fmt.Sprintf("%.2fx", perMin/base)
		}
		fmt.Printf("%-30s %10d %14.3f %14s %12s\n", "every "+every, procs, perMin, x, per)
	}
	fmt.Println("(processes: the tree as the status last showed it; per sample: all of the window's CPU divided by its samples,\n an upper bound: the heartbeat and the relay count too; CPU times are in 10 ms ticks)")
}

// remoteCoreCPU starts a remote backend with 19 children sampled every
// `every`, lets it settle, and returns the CPU time the remote core's
// processes used over window and how many processes its tree had then.
func (e *bench) remoteCoreCPU(every string, window time.Duration) (time.Duration, int, error) {
	b := settings.Backend{Name: "tree", Kind: settings.KindServe, Host: sshtest.Alias, Args: []string{"--spawn-children", "19"}}
	a, err := e.startAppWith(settings.Settings{Backends: []settings.Backend{b}, SSHConfig: e.srv.ClientConfig, DisconnectGrace: "30s", SampleInterval: every})
	if err != nil {
		return 0, 0, err
	}
	defer e.finish("sampling "+every, a)
	if _, err := a.waitReady(1, readyWait); err != nil {
		return 0, 0, err
	}
	time.Sleep(2 * time.Second) // the children started, the first samples sent
	pids := e.remoteCorePIDs()
	if len(pids) == 0 {
		return 0, 0, fmt.Errorf("no remote core process under the sshd")
	}
	before := cpuOf(pids)
	time.Sleep(window)
	cpu := cpuOf(pids) - before
	procs := 0
	if st, err := a.backend("tree"); err == nil && st.Tree != nil {
		procs = len(st.Tree.Processes) // sampled every hour: the first sample, taken before the children
	}
	return cpu, procs, nil
}

// remoteCorePIDs are the remote core's processes of the session: its
// watchdogs and its mux server, by their subcommand.
func (e *bench) remoteCorePIDs() []int {
	var pids []int
	for _, p := range e.srv.Processes() {
		f := strings.Fields(p.Args)
		if len(f) > 1 && strings.Contains(f[0], "hermes-desktop-core") && (f[1] == "watchdog-remote" || f[1] == "mux") {
			pids = append(pids, p.PID)
		}
	}
	return pids
}

// cpuOf is the user and system time of pids (0 for one gone).
func cpuOf(pids []int) time.Duration {
	var ticks int64
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64) // utime, field 14
		k, _ := strconv.ParseInt(f[12], 10, 64) // stime, field 15
		ticks += u + k
	}
	return time.Duration(ticks) * time.Second / clockTicks
}
