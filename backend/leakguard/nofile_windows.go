package leakguard

// ApplyNofileFloor has nothing to raise on Windows: there is no per-process
// open-file limit like RLIMIT_NOFILE.
func ApplyNofileFloor(int) (string, error) { return "", nil }
