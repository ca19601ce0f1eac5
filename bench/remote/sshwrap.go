//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The ssh clients the app starts are counted by an `ssh` of the bench's
// first on the app's PATH (the app runs "ssh" from PATH; the old build
// too): a two-line sh script that appends its argv to a log and execs the
// real client in its place (same PID, so the session is still found by its
// argv). It costs each client one sh exec, about a millisecond.

// installSSHWrapper writes the wrapper into dir and returns the log it
// appends to.
func installSSHWrapper(dir string) (string, error) {
	real, err := exec.LookPath("ssh")
	if err != nil {
		return "", fmt.Errorf("ssh wrapper: %w", err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", fmt.Errorf("ssh wrapper: %w", err)
	}
	log := filepath.Join(dir, "ssh-argv.log")
	// One line a client: how many words follow "--" (0: none; 1: the
	// destination alone; more: a remote command), then the options before
	// it. The remote command itself stays out: it may hold newlines and
	// words like -O.
	script := fmt.Sprintf(`#!/bin/sh
n=0 o=
for a; do
	if [ "$a" = -- ] && [ $n = 0 ]; then n=1; elif [ $n != 0 ]; then n=$((n+1)); else o="$o $a"; fi
done
printf '%%s |%%s\n' "$((n > 0 ? n - 1 : 0))" "$o" >> '%s'
exec '%s' "$@"
`, log, real)
	if err := os.WriteFile(filepath.Join(dir, "ssh"), []byte(script), 0o755); err != nil {
		return "", fmt.Errorf("ssh wrapper: %w", err)
	}
	return log, nil
}

// withPath is env with dir first on its PATH.
func withPath(env []string, dir string) []string {
	out := slices.Clone(env)
	for i, kv := range out {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			out[i] = "PATH=" + dir + ":" + v
			return out
		}
	}
	return append(out, "PATH="+dir+":/usr/bin:/bin")
}

// sshLines is every argv the wrapper logged so far, one a line.
func (e *bench) sshLines() []string {
	b, err := os.ReadFile(e.sshLog)
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// sshCalls is what a span of ssh clients did.
type sshCalls struct {
	clients  int // ssh processes started, of any kind
	commands int // of them, connections or mux clients that ran a remote command
}

// classify counts lines: a client with no word after its destination
// runs no remote command (`-G`, a ControlMaster's `-M -N`, a `-O`
// request to it); every other one does: the old transport's mux clients,
// one per remote command, and the new transport's one session, whose
// command is the bootstrap that becomes the mux server.
func classify(lines []string) sshCalls {
	var c sshCalls
	for _, l := range lines {
		words, _, ok := strings.Cut(l, " |")
		if !ok {
			continue
		}
		c.clients++
		if n, _ := strconv.Atoi(words); n > 1 {
			c.commands++
		}
	}
	return c
}

// sshSince counts the clients logged after the first mark lines.
func (e *bench) sshSince(mark int) sshCalls {
	lines := e.sshLines()
	return classify(lines[min(mark, len(lines)):])
}

// sshMark is the number of lines logged so far.
func (e *bench) sshMark() int {
	lines := e.sshLines()
	if len(lines) == 1 && lines[0] == "" {
		return 0
	}
	return len(lines)
}
