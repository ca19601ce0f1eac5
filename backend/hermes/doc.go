// Package hermes holds the contract hermes-desktop keeps with a Hermes
// backend and its tools, written once for every package that needs it. It
// is a leaf: it imports nothing of this module.
//
// For now it holds the loopback-host rule (IsLoopbackHost, FindLoopbackURL);
// issue 24 plans the rest of the contract here (env names, ready lines,
// command lines, the auth header, the public paths, the lock and gateway
// file schemas).
package hermes
