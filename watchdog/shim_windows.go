package watchdog

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/handles"
	"hermes-desktop/platform/job"
	"hermes-desktop/platform/proc"
)

// treeHold is what the shim's hooks hand each other on Windows, from
// containTree to startChild to runShimLoop: the job that holds the tree
// and the backend's process.
type treeHold struct {
	// job is the shim's kill-on-close job. The shim joins it before
	// starting the backend, so the backend and everything it starts are
	// born inside; when the shim exits, however it exits, Windows kills
	// them all. The handle is never closed: exiting closes it.
	job *job.Job
	// child is the backend; runShimLoop owns its Wait.
	child *os.Process
}

// notifyShimSignals catches console control events (delivered as SIGINT)
// and SIGTERM from os.Process.Signal emulation.
func notifyShimSignals() chan os.Signal {
	c := make(chan os.Signal, 4)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	return c
}

// leadProcessGroup has no Windows counterpart: the job object holds the tree.
func leadProcessGroup() error { return nil }

func openReportFD(fd uintptr) (*os.File, error) {
	f, err := handles.Take(fd, "report")
	if err != nil {
		return nil, fmt.Errorf("watchdog: report: %w", err)
	}
	return f, nil
}

// containTree joins a kill-on-close job: the shim's descendants cannot
// leave it (the Windows counterpart of the Linux subreaper).
func containTree(h *treeHold) error {
	j, err := job.NewKillOnClose(false)
	if err != nil {
		return err
	}
	if err := j.AssignSelf(); err != nil {
		j.Close()
		return err
	}
	h.job = j
	return nil
}

// startChild starts the backend in a new console process group, so it can
// be sent CTRL_BREAK as its SIGTERM, on a console of its own without a
// window: the desktop build has no console to lend it, and Windows would
// otherwise open a console window for a console backend (hermes.exe).
func startChild(h *treeHold, argv, env []string, _ *cgroup.Cgroup) (proc.Identity, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return proc.Identity{}, fmt.Errorf("watchdog: %w", err)
	}
	p, err := os.StartProcess(path, argv, &os.ProcAttr{
		Env:   env,
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW},
	})
	if err != nil {
		return proc.Identity{}, fmt.Errorf("watchdog: start %s: %w", path, err)
	}
	h.child = p
	id, err := proc.Lookup(p.Pid)
	if err != nil {
		_ = p.Kill()
		return proc.Identity{}, fmt.Errorf("watchdog: identify backend %d: %w", p.Pid, err)
	}
	return id, nil
}

// runShimLoop waits for the backend's exit, a teardown signal or the parent's
// death. A teardown sends CTRL_BREAK, waits the grace period, then kills
// every other process in the job.
func runShimLoop(h *treeHold, child proc.Identity, _ *cgroup.Cgroup, signals <-chan os.Signal, parentGone <-chan Reason, grace time.Duration, log *slog.Logger) int {
	exited := make(chan *os.ProcessState, 1)
	go func() {
		st, _ := h.child.Wait()
		exited <- st
	}()
	var why string
	select {
	case st := <-exited:
		h.killJobMembers(log)
		return st.ExitCode()
	case sig := <-signals:
		why = "signal " + sig.String()
	case r := <-parentGone:
		why = "parent gone (" + string(r) + ")"
	}
	log.Info("tearing down the backend tree", "why", why, "grace", grace)
	if err := proc.SignalOwnConsoleGroup(child.PID); err != nil {
		// Nothing else can ask it (Wine delivers no console events at
		// all): waiting out the grace would only leave it running.
		log.Info("cannot ask the backend to stop; killing its tree now", "err", err)
		grace = 0
	}
	select {
	case st := <-exited:
		h.killJobMembers(log)
		return st.ExitCode()
	case <-time.After(grace):
	}
	h.killJobMembers(log)
	select {
	case st := <-exited:
		return st.ExitCode()
	case <-time.After(5 * time.Second):
		// Something in the job could not be killed from here. Exiting closes
		// the kill-on-close job, which takes every member with it.
		log.Warn("backend still running after the kill; exiting so the job closes")
		return 128 + 9
	}
}

// killJobMembers terminates every process in the shim's job except the shim.
func (h *treeHold) killJobMembers(log *slog.Logger) {
	if h.job == nil {
		return
	}
	if err := h.job.KillMembers(); err != nil {
		log.Warn("kill job members", "err", err)
	}
}
