package diagnose

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"hermes-desktop/backend/model"
)

func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

// platformFacts: the OS, the kernel, and the WebKitGTK and GTK libraries
// installed (their file names carry their versions).
func platformFacts() [][2]string {
	var out [][2]string
	out = append(out, [2]string{"os", osRelease()})
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		out = append(out, [2]string{"kernel", unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Machine[:])})
	}
	for _, lib := range []string{"libwebkit2gtk-4.1.so.0", "libwebkit2gtk-4.0.so.37", "libgtk-3.so.0"} {
		out = append(out, [2]string{strings.SplitN(lib, ".so", 2)[0], libraryFile(lib)})
	}
	return out
}

func osRelease() string {
	data, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return "unknown"
}

// libraryFile is the file a library's soname resolves to, in the usual
// places ("libgtk-3.so.0.2406.32"), or "not installed".
func libraryFile(soname string) string {
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"} {
		if real, err := filepath.EvalSymlinks(filepath.Join(dir, soname)); err == nil {
			return filepath.Base(real)
		}
	}
	return "not installed"
}

// processFacts: the app's cgroup.
func processFacts(pid int) [][2]string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return nil
	}
	return [][2]string{{"app cgroup", strings.ReplaceAll(strings.TrimSpace(string(data)), "\n", "; ")}}
}

// processEnvs are the environments of the app and of its local backends
// and shims (ours: the same user), whose secret values are redacted.
func processEnvs(st *model.Status) []string {
	if st == nil {
		return nil
	}
	pids := []int{st.Instance.PID}
	for _, b := range st.Backends {
		if b.Host == "" {
			pids = append(pids, b.PID, b.ShimPID)
		}
	}
	var env []string
	for _, pid := range pids {
		if pid <= 0 {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(data, []byte{0}) {
			env = append(env, string(kv))
		}
	}
	return env
}
