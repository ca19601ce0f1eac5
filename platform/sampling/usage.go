package sampling

// Usage is what a process holds right now.
type Usage struct {
	// RSS is the resident set size in bytes.
	RSS int64
	// FDs is the number of open file descriptors (handles on Windows).
	FDs int
}

// ReadUsage reads pid's resident memory and open descriptors.
func ReadUsage(pid int) (Usage, error) { return readUsage(pid) }

// NofileSoft returns pid's soft RLIMIT_NOFILE (0 meaning unlimited or
// unknown).
func NofileSoft(pid int) (uint64, error) { return readNofileSoft(pid) }
