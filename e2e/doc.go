// Package e2e holds the end-to-end tests: they build the real binary
// (internal/testbin) and drive launchers, shims, built-in backends and
// orphans as a user and a crash would, then check that nothing of ours is
// left and nothing else was touched. It has no production code; it may
// import every layer.
package e2e
