package ssh

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"hermes-desktop/platform/proc"
)

// resolved is what ssh -G says a destination means under the user's
// config: the settings we read rather than guess.
type resolved struct {
	HostName, Port, User  string
	StrictHostKeyChecking string // ask, true (yes), false (no), accept-new
	// KnownHostsFile is the first UserKnownHostsFile: where ssh itself
	// records an accepted key, so where a person should add one.
	KnownHostsFile string
}

func (r resolved) address() string {
	if r.Port == "22" {
		return r.HostName
	}
	return "[" + r.HostName + "]:" + r.Port
}

// knownName is the host as known_hosts names it.
func (r resolved) knownName() string { return r.address() }

// resolve runs `ssh -G`, which prints the configuration ssh would use for
// the destination without connecting.
func resolve(ctx context.Context, o Options) (resolved, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := append(configArgs(o), "-G", "--", o.Destination)
	out, err := proc.OutputChild(exec.CommandContext(ctx, o.SSH, args...))
	if err != nil {
		return resolved{}, fmt.Errorf("ssh: resolve %q (ssh -G): %w%s", o.Destination, err, stderrOf(err))
	}
	var r resolved
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		switch k {
		case "hostname":
			r.HostName = v
		case "port":
			r.Port = v
		case "user":
			r.User = v
		case "stricthostkeychecking":
			r.StrictHostKeyChecking = v
		case "userknownhostsfile":
			r.KnownHostsFile, _, _ = strings.Cut(v, " ")
		}
	}
	return r, nil
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return ": " + lastLine(string(ee.Stderr))
	}
	return ""
}
