// Package reap is the boot reaper: once per boot, in the single-instance
// holder, before the first spawn (and on demand, `hermes-desktop reap`), it
// finds the backends that earlier crashes left behind and removes them,
// without ever signalling a process someone else legitimately owns. It owns
// the candidate test (ParseShape), the decision rules, each with a reason
// word, and the TERM -> grace -> KILL of the doomed trees; every candidate
// gets a Decision that says why. Before the processes it judges the
// leftover backend cgroups (cgroup.go): membership is evidence no fork can
// shed, so an abandoned one is killed whole and removed. The report's
// types (Report, Decision, the actions and reason words) are package
// reapreport's, a leaf, so that what only reads a report does not take in
// the reaper.
//
// The Launcher in package backend runs it, so reap must never import
// backend.
package reap
