package testbin

import (
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// Machine says what the benchmarks ran on, in one line: CPUs and kernel.
func Machine() string {
	var u unix.Utsname
	_ = unix.Uname(&u)
	return "machine: " + strconv.Itoa(runtime.NumCPU()) + " CPUs, kernel " + unix.ByteSliceToString(u.Release[:])
}
