// The cgroup v2 mount and the paths in it.

package cgroup

import (
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"hermes-desktop/platform/proc"

	"golang.org/x/sys/unix"
)

// cgroupMount is where the v2 hierarchy is mounted and which of its paths
// the mount's root shows (not "/" when a subtree is bind-mounted).
type cgroupMount struct {
	dir  string
	root string
}

var findMount = sync.OnceValues(readCgroupMount)

// readCgroupMount finds the cgroup2 mount in /proc/self/mountinfo (proc(5):
// field 4 is the root within the file system, field 5 the mount point; the
// file system type follows the " - " separator).
func readCgroupMount() (cgroupMount, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return cgroupMount{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, fsType := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(fsType) < 1 || fsType[0] != "cgroup2" {
			continue
		}
		return cgroupMount{dir: unescapeMountinfo(f[4]), root: unescapeMountinfo(f[3])}, nil
	}
	return cgroupMount{}, fmt.Errorf("%w: no cgroup2 mount in /proc/self/mountinfo", ErrUnavailable)
}

// unescapeMountinfo undoes the kernel's octal escapes (\040 for a space).
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Mount returns the directory the cgroup v2 hierarchy is mounted on.
func Mount() (string, error) {
	m, err := findMount()
	return m.dir, err
}

// Own returns the calling process's cgroup v2 path.
func Own() (string, error) { return cgroupOfFile("/proc/self/cgroup") }

// Of returns pid's cgroup v2 path (proc.ErrNotFound when it is gone).
func Of(pid int) (string, error) {
	p, err := cgroupOfFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if proc.Vanished(err) {
		return "", fmt.Errorf("%w: pid %d", proc.ErrNotFound, pid)
	}
	return p, err
}

// cgroupOfFile reads the "0::<path>" line of a /proc/PID/cgroup file.
func cgroupOfFile(file string) (string, error) {
	var buf [4096]byte
	data, err := proc.ReadFile(file, buf[:])
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return strings.TrimSuffix(p, " (deleted)"), nil
		}
	}
	return "", fmt.Errorf("%w: no cgroup v2 line in %s", ErrUnavailable, file)
}

// cgroupDir maps a hierarchy path to its directory, refusing anything that
// is not a clean absolute path or lies outside the mount.
func cgroupDir(p string) (string, error) {
	if !path.IsAbs(p) || path.Clean(p) != p {
		return "", fmt.Errorf("cgroup: cgroup path %q is not clean and absolute", p)
	}
	m, err := findMount()
	if err != nil {
		return "", err
	}
	rel := p
	if m.root != "/" {
		var ok bool
		if rel, ok = strings.CutPrefix(p, m.root); !ok || (rel != "" && rel[0] != '/') {
			return "", fmt.Errorf("cgroup: cgroup %s is outside the mounted subtree %s", p, m.root)
		}
	}
	return m.dir + strings.TrimSuffix(rel, "/"), nil
}

// Writable reports (nil) whether this process may create cgroups
// under p and move processes into them: write access to the directory and
// to its cgroup.procs (the delegation rule for migrations: the common
// ancestor's cgroup.procs must be writable). A read-only mount answers
// EROFS.
func Writable(p string) error {
	dir, err := cgroupDir(p)
	if err != nil {
		return err
	}
	for _, f := range []string{dir, dir + "/cgroup.procs"} {
		if err := unix.Access(f, unix.W_OK); err != nil {
			return fmt.Errorf("cgroup: %s: %w", f, err)
		}
	}
	return nil
}
