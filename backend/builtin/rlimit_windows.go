package builtin

// keepInheritedNofile: Windows has no RLIMIT_NOFILE.
func keepInheritedNofile() error { return nil }
