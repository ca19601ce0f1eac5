package backend

// applyNofileFloor has nothing to raise on Windows: there is no per-process
// open-file limit like RLIMIT_NOFILE.
func applyNofileFloor(int) (string, error) { return "", nil }
