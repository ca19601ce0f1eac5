package supervisor

import (
	"strings"
	"testing"
	"unicode"

	"hermes-desktop/backend/model"
)

// allStates is every State package model defines. A new state must be added
// here and to the matrix below, or TestTransitionsKnowOnlyTheseStates fails.
var allStates = []model.State{model.StateStopped, model.StateStarting, model.StateReady, model.StateRestarting, model.StateFailed, model.StateExternal}

// TestCheckTransition checks all 36 (from, to) pairs against the moves the
// supervisor is designed to make. The matrix is written out by hand, not
// derived from the transitions map, so that an edit to the map shows up here.
func TestCheckTransition(t *testing.T) {
	const (
		ok = true
		no = false
	)
	// Why each legal move exists (the supervisor code that makes it):
	//   stopped    -> starting    Start / autostart (launch)
	//   stopped    -> failed      launch: the command does not exist or is not executable
	//   stopped    -> restarting  launch: spawn failed otherwise (onCrash)
	//   starting   -> ready       onReady
	//   starting   -> restarting  crash or start timeout (onCrash)
	//   starting   -> failed      crash with the restart budget spent
	//   starting   -> stopped     Stop, or the launcher's context ends
	//   starting   -> starting    Restart while starting
	//   ready      -> restarting  crash; ready -> failed: crash, budget spent
	//   ready      -> stopped     Stop; ready -> starting: Restart, leak guard
	//   restarting -> starting    the backoff timer fires, or Restart
	//   restarting -> stopped     Stop; restarting -> failed: launch cannot start
	//   failed     -> starting    Start / Restart ("Try again")
	//   failed     -> stopped     Stop; failed -> restarting: Start, spawn failed
	//   starting   -> external    the command attached to a Hermes backend someone else runs
	//   external   -> starting    that backend went away (start our own), or Restart
	//   external   -> stopped     Stop, or the launcher's context ends
	// Never: ready from anything but starting (readiness is only ever
	// observed on a started instance), and staying put outside starting
	// (move never asks checkTransition about a state it is already in).
	want := map[model.State]map[model.State]bool{
		model.StateStopped: {
			model.StateStopped: no, model.StateStarting: ok, model.StateReady: no, model.StateRestarting: ok, model.StateFailed: ok, model.StateExternal: no,
		},
		model.StateStarting: {
			model.StateStopped: ok, model.StateStarting: ok, model.StateReady: ok, model.StateRestarting: ok, model.StateFailed: ok, model.StateExternal: ok,
		},
		model.StateReady: {
			model.StateStopped: ok, model.StateStarting: ok, model.StateReady: no, model.StateRestarting: ok, model.StateFailed: ok, model.StateExternal: no,
		},
		model.StateRestarting: {
			model.StateStopped: ok, model.StateStarting: ok, model.StateReady: no, model.StateRestarting: no, model.StateFailed: ok, model.StateExternal: no,
		},
		model.StateFailed: {
			model.StateStopped: ok, model.StateStarting: ok, model.StateReady: no, model.StateRestarting: ok, model.StateFailed: no, model.StateExternal: no,
		},
		model.StateExternal: {
			model.StateStopped: ok, model.StateStarting: ok, model.StateReady: no, model.StateRestarting: no, model.StateFailed: no, model.StateExternal: no,
		},
	}
	for _, from := range allStates {
		for _, to := range allStates {
			t.Run(string(from)+"->"+string(to), func(t *testing.T) {
				legal, listed := want[from][to]
				if !listed {
					t.Fatalf("the test's matrix has no entry for %s -> %s", from, to)
				}
				err := checkTransition(from, to)
				if got := err == nil; got != legal {
					t.Fatalf("checkTransition(%s, %s) accepted: got %v, want %v (err: %v)", from, to, got, legal, err)
				}
				if err != nil && !namesInOrder(err.Error(), from, to) {
					t.Errorf("checkTransition(%s, %s) error: got %q, want it to name %s, then %s", from, to, err, from, to)
				}
			})
		}
	}
}

// TestTransitionsKnowOnlyTheseStates keeps allStates honest: a state the
// transitions map knows (as a source or a target) but the matrix does not
// would go unchecked.
func TestTransitionsKnowOnlyTheseStates(t *testing.T) {
	known := map[model.State]bool{}
	for _, s := range allStates {
		known[s] = true
	}
	for from, tos := range transitions {
		for _, s := range append([]model.State{from}, tos...) {
			if !known[s] {
				t.Errorf("transitions mentions state %q: got it, want it in allStates and the matrix", s)
			}
		}
	}
	if got, want := checkTransition("bogus", model.StateStarting) == nil, false; got != want {
		t.Errorf("checkTransition from an unknown state accepted: got %v, want %v", got, want)
	}
}

// namesInOrder reports whether msg has from as a whole word and to as a
// later whole word ("restarting" does not count as naming "starting").
func namesInOrder(msg string, from, to model.State) bool {
	words := strings.FieldsFunc(msg, func(r rune) bool { return !unicode.IsLetter(r) })
	for i, w := range words {
		if w != string(from) {
			continue
		}
		for _, v := range words[i+1:] {
			if v == string(to) {
				return true
			}
		}
	}
	return false
}
