package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// maxEnviron bounds how much of another process's environment we read.
const maxEnviron = 1 << 20

// Getenv returns the value of key in the environment pid started with
// (/proc/PID/environ: readable for our own user's processes only).
func Getenv(pid int, key string) (string, bool, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			return "", false, fmt.Errorf("%w: pid %d", ErrNotFound, pid)
		}
		return "", false, fmt.Errorf("proc: environ of %d: %w", pid, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEnviron))
	if err != nil {
		return "", false, fmt.Errorf("proc: environ of %d: %w", pid, err)
	}
	prefix := []byte(key + "=")
	for _, kv := range bytes.Split(data, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			return string(v), true, nil
		}
	}
	return "", false, nil
}
