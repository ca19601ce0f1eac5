//go:build linux

// Command exitnotice measures how long after a SIGKILL a process's pipe
// reads EOF, by how much memory the killed process had touched: the way the
// watchdog shim learns that its launcher died (lifeline EOF). The kernel
// closes a dying process's files only after it has freed its memory, so the
// notice comes later the bigger the launcher is; `sleep`, a C program
// touching nearly nothing, is the floor. Side by side in one run.
//
// Usage: go run ./bench/exitnotice [-n 30] [-mb 0,12,100]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hermes-desktop/internal/testbin"
)

const childArg = "exitnotice-child"

func main() {
	if len(os.Args) == 3 && os.Args[1] == childArg {
		os.Exit(child(os.Args[2]))
	}
	n := flag.Int("n", 30, "SIGKILLs per size")
	sizes := flag.String("mb", "0,12,100", "megabytes the killed Go process touches, comma-separated")
	flag.Parse()
	self, err := os.Executable()
	check(err)
	fmt.Printf("SIGKILL -> EOF on a pipe the killed process held: %d kills each\n%s\n\n", *n, testbin.Machine())
	fmt.Printf("%-34s %9s %9s %9s\n", "killed process", "p50", "p90", "max")
	row := func(name string, argv ...string) {
		var ds []time.Duration
		for i := 0; i < *n; i++ {
			d, err := killToEOF(argv)
			check(err)
			ds = append(ds, d)
		}
		slices.Sort(ds)
		fmt.Printf("%-34s %9s %9s %9s\n", name, testbin.FormatDuration(ds[len(ds)/2]),
			testbin.FormatDuration(ds[len(ds)*9/10]), testbin.FormatDuration(ds[len(ds)-1]))
	}
	if sleep, err := exec.LookPath("sleep"); err == nil {
		row("sleep (C, floor)", sleep, "60")
	}
	for _, mb := range strings.Split(*sizes, ",") {
		row("Go, "+mb+" MB touched", self, childArg, mb)
	}
	fmt.Println("\nthe shim's parent-death detection cannot come sooner than this after its launcher is killed")
}

// killToEOF starts argv with a pipe's write end as its stdout, waits until
// it is running and settled, SIGKILLs it and times the read end's EOF.
func killToEOF(argv []string) (time.Duration, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		return 0, err
	}
	defer func() { _ = cmd.Wait() }()  // killed below; only collected
	time.Sleep(100 * time.Millisecond) // started, and for a Go child its memory touched
	buf := make([]byte, 64)
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return 0, err
	}
	for {
		// A blocking read on the raw fd: EOF is what is timed, not Go's poller.
		k, err := syscall.Read(int(r.Fd()), buf)
		if err == syscall.EINTR {
			continue
		}
		if k <= 0 {
			return time.Since(start), nil
		}
	}
}

// child touches mb megabytes and waits to be killed.
func child(mb string) int {
	size, err := strconv.Atoi(mb)
	if err != nil || size < 0 {
		fmt.Fprintln(os.Stderr, "exitnotice: bad size", mb)
		return 2
	}
	mem := make([]byte, size<<20)
	for i := 0; i < len(mem); i += 4096 {
		mem[i] = 1
	}
	for {
		time.Sleep(time.Hour)
		mem[0]++
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "exitnotice:", err)
		os.Exit(1)
	}
}
