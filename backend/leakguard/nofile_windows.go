package leakguard

// ApplyNofileFloor has nothing to raise on Windows: there is no per-process
// open-file limit like RLIMIT_NOFILE.
func ApplyNofileFloor(int) (string, error) { return "", nil }

// nofileSoft is 0 (unlimited) on Windows, which has no per-process
// open-file limit: an answer, not an error, so the Sampler keeps it like
// any limit read instead of asking again at every sample.
func nofileSoft(int) (uint64, error) { return 0, nil }
