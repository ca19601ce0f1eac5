// Package leakguard watches a backend's process tree for the slow leaks that
// sank the Electron desktop (53 duplicate MCP children, descriptors running
// out at a 256 limit). It owns the tree sampler (Sampler, walking only the
// backend's descendants and reading again only what may have changed), the
// pace of its samples (Clock), the warnings and the policies that act on them
// (Guard: fd pressure, duplicate command lines, RSS growth; stopping surplus
// duplicates; asking for a restart before EMFILE), and the open-file floor
// the backends start with (ApplyNofileFloor).
//
// It sits below package backend, whose supervisors own one Guard each and
// pass it a callback for the lines it writes to the backend's log. It must
// not import backend, nor anything above it: only platform/proc and the
// standard library.
package leakguard
