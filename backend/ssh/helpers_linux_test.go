package ssh_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hermes-desktop/backend/remotecore"
	"hermes-desktop/internal/coretest"
	"hermes-desktop/internal/testbin"
)

func execOutput(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return string(out), err
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// childrenNamed lists this process's children (zombies too) whose comm is
// name.
func childrenNamed(t *testing.T, name string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	me := strconv.Itoa(os.Getpid())
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(s[j+1:])
		if len(f) > 1 && s[i+1:j] == name && f[1] == me {
			out = append(out, pid)
		}
	}
	return out
}

// coresDir is a cores directory whose core for this machine is the test
// binary's hermes-desktop (testbin.Path): the session's core on the
// "remote" is the app's own build, serving the multiplexer.
func coresDir(t *testing.T) string {
	t.Helper()
	return coretest.Dir(t, testbin.Path(t))
}

// openCores opens the cores directory dir as the version it holds.
func openCores(dir string) (*remotecore.Cores, error) {
	v, err := os.ReadFile(filepath.Join(dir, remotecore.VersionFile))
	if err != nil {
		return nil, err
	}
	return remotecore.OpenCores(dir, strings.TrimSpace(string(v)))
}

// newBoot is the bootstrap of a test's sessions, with coresDir's core.
func newBoot(t *testing.T) *remotecore.Boot {
	t.Helper()
	cores, err := openCores(coresDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return remotecore.NewBoot(cores)
}
