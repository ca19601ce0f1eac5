// Package sampling is what a sampler that runs at rest needs: a Ticker that
// wakes one thread a tick, and what a process holds right now (Usage: its
// resident memory and open descriptors, and its descriptor limit). The
// leak guard is its user.
package sampling
