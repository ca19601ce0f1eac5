package cgroup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// The systemd path to a cgroup, for a launcher that may not write one
// itself: the user's service manager creates a transient scope unit
// (org.freedesktop.systemd1.Manager.StartTransientUnit, a scope named by
// the caller, Delegate=yes) around a process that already runs, and hands
// the scope's cgroup subtree to it. Kept small on purpose: one connection,
// one call and the job's completion signal.

const (
	systemdName    = "org.freedesktop.systemd1"
	systemdPath    = dbus.ObjectPath("/org/freedesktop/systemd1")
	systemdManager = "org.freedesktop.systemd1.Manager"
	// scopeStartWait bounds the wait for the scope's start job.
	scopeStartWait = 5 * time.Second
)

// UserManager is a connection to the user's systemd manager on the session
// bus. It is safe for concurrent use.
type UserManager struct {
	conn *dbus.Conn
}

// ConnectUserManager connects to the session bus (DBUS_SESSION_BUS_ADDRESS,
// else $XDG_RUNTIME_DIR/bus; never a bus started on demand) and checks that
// a systemd user manager answers there.
func ConnectUserManager() (*UserManager, error) {
	addr, err := sessionBusAddress()
	if err != nil {
		return nil, err
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return nil, fmt.Errorf("cgroup: session bus %s: %w", addr, err)
	}
	m := &UserManager{conn: conn}
	if err := m.subscribe(); err != nil {
		conn.Close()
		return nil, err
	}
	return m, nil
}

// sessionBusAddress finds the session bus without starting one (godbus
// would run dbus-launch, and set our environment, when none is found).
func sessionBusAddress() (string, error) {
	if addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); addr != "" && addr != "autolaunch:" {
		return addr, nil
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		if fi, err := os.Stat(dir + "/bus"); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + dir + "/bus", nil
		}
	}
	return "", errors.New("cgroup: no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus)")
}

// subscribe checks the manager answers (its Version) and asks it for the
// JobRemoved signals StartScope waits on (systemd sends most signals only
// to subscribers: org.freedesktop.systemd1(5), Subscribe()).
func (m *UserManager) subscribe() error {
	obj := m.conn.Object(systemdName, systemdPath)
	if _, err := obj.GetProperty(systemdManager + ".Version"); err != nil {
		return fmt.Errorf("cgroup: no systemd user manager on the session bus: %w", err)
	}
	if err := m.conn.AddMatchSignal(dbus.WithMatchObjectPath(systemdPath),
		dbus.WithMatchInterface(systemdManager), dbus.WithMatchMember("JobRemoved")); err != nil {
		return fmt.Errorf("cgroup: systemd user manager: add match: %w", err)
	}
	if call := obj.Call(systemdManager+".Subscribe", 0); call.Err != nil {
		return fmt.Errorf("cgroup: systemd user manager: subscribe: %w", call.Err)
	}
	return nil
}

// Close closes the connection.
func (m *UserManager) Close() error { return m.conn.Close() }

// scopeProperty is one (sv) of StartTransientUnit's properties.
type scopeProperty struct {
	Name  string
	Value dbus.Variant
}

// StartScope creates the transient scope unit (a name ending in ".scope")
// around pid, with Delegate=yes so that the cgroup subtree is ours to
// create children in, waits until the start job is done and returns the
// scope's cgroup path, read back from pid's own /proc/PID/cgroup.
func (m *UserManager) StartScope(unit string, pid int) (string, error) {
	signals := make(chan *dbus.Signal, 16)
	m.conn.Signal(signals) // before the call: the job may end before the reply is read
	defer m.conn.RemoveSignal(signals)
	props := []scopeProperty{
		{"Description", dbus.MakeVariant("hermes-desktop backend tree")},
		{"PIDs", dbus.MakeVariant([]uint32{uint32(pid)})},
		{"Delegate", dbus.MakeVariant(true)},
		{"CollectMode", dbus.MakeVariant("inactive-or-failed")},
	}
	aux := []struct {
		Name  string
		Props []scopeProperty
	}{}
	var job dbus.ObjectPath
	obj := m.conn.Object(systemdName, systemdPath)
	if err := obj.Call(systemdManager+".StartTransientUnit", 0, unit, "fail", props, aux).Store(&job); err != nil {
		return "", fmt.Errorf("cgroup: start scope %s: %w", unit, err)
	}
	if err := waitJob(signals, job); err != nil {
		return "", fmt.Errorf("cgroup: start scope %s: %w", unit, err)
	}
	cg, err := Of(pid)
	if err != nil {
		return "", err
	}
	if path.Base(cg) != unit {
		return "", fmt.Errorf("cgroup: start scope %s: pid %d is in %s, not in the scope", unit, pid, cg)
	}
	return cg, nil
}

// waitJob waits for JobRemoved(id, job, unit, result) of job and checks
// its result.
func waitJob(signals <-chan *dbus.Signal, job dbus.ObjectPath) error {
	ctx, cancel := context.WithTimeout(context.Background(), scopeStartWait)
	defer cancel()
	for {
		select {
		case s, ok := <-signals:
			if !ok {
				return errors.New("the bus connection closed")
			}
			if s.Name != systemdManager+".JobRemoved" || len(s.Body) < 4 {
				continue
			}
			if p, _ := s.Body[1].(dbus.ObjectPath); p != job {
				continue
			}
			if result, _ := s.Body[3].(string); result != "done" {
				return fmt.Errorf("job %s: %s", job, strings.TrimSpace(result))
			}
			return nil
		case <-ctx.Done():
			return fmt.Errorf("job %s did not finish within %v", job, scopeStartWait)
		}
	}
}
