// Package sampling is what a sampler that runs at rest needs: a Ticker that
// wakes one thread a tick, and what a process holds right now (Usage: its
// resident memory and open descriptors, and its descriptor limit). The
// leak guard is its user. It is in the bottom layer, platform/, and imports
// only platform/proc (its /proc reads and ErrNotFound).
package sampling
