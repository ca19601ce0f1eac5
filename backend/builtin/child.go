package builtin

import (
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
// a new session (as the Python MCP SDK starts stdio servers), and reaps it
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

// ChildMain is a fault child: it does nothing until a signal ends it, like an
// idle MCP stdio server. SIGTERM keeps its default action.
func ChildMain(args []string, stderr io.Writer) int {
	_ = args // --kind only labels the command line
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP) // a closed terminal must not end it
	for range sigs {
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
