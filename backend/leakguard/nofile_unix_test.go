//go:build unix

package leakguard

// hasNofileLimit: every Unix process has a soft RLIMIT_NOFILE.
const hasNofileLimit = true
