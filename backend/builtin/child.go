package builtin

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// ChildCommand is the hidden subcommand the fault children run.
const ChildCommand = "serve-child"

// spawnChild starts `hermes-desktop serve-child --kind KIND`, optionally in
// a new session (as the Python MCP SDK starts stdio servers), and collects it
// when it exits so it never lingers as a zombie of ours.
func (s *server) spawnChild(kind string, newSession bool) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("spawn %s child: %w", kind, err)
	}
	cmd := exec.Command(self, ChildCommand, "--kind", kind)
	cmd.Stdin = nil
	if s.opts.ScrubChildEnv {
		cmd.Env = scrubbedEnv(s.opts.KeepChildEnv)
	}
	cmd.SysProcAttr = childAttr(newSession)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("spawn %s child: %w", kind, err)
	}
	s.mu.Lock()
	s.children = append(s.children, cmd.Process.Pid)
	s.mu.Unlock()
	go func() { _ = cmd.Wait() }() // the child's only waiter; ends when it exits
	return nil
}

// spawnDaemon starts `serve-child --daemonize` with an empty environment:
// it starts the daemon in a new session and exits at once, so the daemon is
// orphaned (reparented to the nearest subreaper, or init) and carries
// nothing of ours. The middle child is collected here.
func (s *server) spawnDaemon() error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("spawn daemon: %w", err)
	}
	cmd := exec.Command(self, ChildCommand, "--daemonize", "--kind", "daemon", "--label", s.opts.DaemonLabel)
	cmd.Env = []string{} // empty, not inherited
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("spawn daemon: %w", err)
	}
	return nil
}

// ChildMain is a fault child: it does nothing until a signal ends it, like an
// idle MCP stdio server. SIGTERM keeps its default action. With
// --daemonize it starts itself again as a daemon (new session, stdio on
// /dev/null, the environment it was given) and exits.
func ChildMain(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet(ChildCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	daemonize := fs.Bool("daemonize", false, "start the child as a daemon and exit")
	kind := fs.String("kind", "", "labels the command line")
	label := fs.String("label", "", "labels the command line")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *daemonize {
		return daemonize1(*kind, *label, stderr)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP) // a closed terminal must not end it
	for range sigs {
	}
	return 0
}

// daemonize1 is the middle of the double fork: it starts the daemon in a
// session of its own and exits, orphaning it.
func daemonize1(kind, label string, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	cmd := exec.Command(self, ChildCommand, "--kind", kind, "--label", label)
	cmd.Env = os.Environ()
	cmd.SysProcAttr = childAttr(true)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// scrubbedEnv is the environment an allowlisting MCP client gives its
// servers: HOME and PATH, plus the names in keep.
func scrubbedEnv(keep []string) []string {
	env := []string{"HOME=" + os.Getenv("HOME"), "PATH=" + os.Getenv("PATH")}
	for _, name := range keep {
		if v, ok := os.LookupEnv(name); ok && name != "" {
			env = append(env, name+"="+v)
		}
	}
	return env
}
