//go:build linux

package main

import (
	"fmt"
	"syscall"
	"time"

	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/testbin"
)

// Reclaim after a closed session, as e2e TestRemoteQuietSessionReclaimed
// does it: the session's ssh client SIGSTOPped long enough for the remote
// watchdog to count the session as quiet (not the app's doing), then
// SIGKILLed; the app's next session claims the same remote backend.

// reclaims runs the case `runs` times and prints one row.
func (e *bench) reclaims(runs int, grace, quiet time.Duration) {
	var back []time.Duration
	same, auths := 0, 0
	for i := 0; i < runs; i++ {
		d, ok, n := e.reclaimOnce(grace, quiet)
		back = append(back, d)
		auths += n
		if ok {
			same++
		}
	}
	p50, _, mx := testbin.Quantiles(back)
	fmt.Printf("reclaim after a closed session (the ssh client SIGSTOPped %v, then SIGKILLed; disconnect grace %v)\n", quiet, grace)
	fmt.Printf("%-44s %9s %9s %16s %14s\n", "SIGKILL -> connected, same remote PID", "p50", "max", "same PID", "auths/reclaim")
	fmt.Printf("%-44s %9s %9s %16s %14.1f\n", fmt.Sprintf("%d runs", runs), fd(p50), fd(mx), fmt.Sprintf("%d/%d", same, runs), float64(auths)/float64(runs))
	fmt.Println("(the status polled every 20 ms; auths: sshd's authentications from the SIGSTOP to connected: the new session's)")
}

// reclaimOnce returns how long after the SIGKILL the status showed the
// same remote PID connected again (Never if it did not), whether it did,
// and the authentications meanwhile.
func (e *bench) reclaimOnce(grace, quiet time.Duration) (time.Duration, bool, int) {
	a, err := e.startApp([]settings.Backend{remoteServe("far")}, grace.String())
	check(e.tb, err)
	defer e.finish("reclaim", a)
	if _, err := a.waitReady(1, readyWait); err != nil {
		e.tb.Fatalf("reclaim: %v", err)
	}
	b, err := a.backend("far")
	check(e.tb, err)
	session, err := a.master()
	check(e.tb, err)
	auth0 := e.srv.Authentications()
	check(e.tb, sendSignal(session, syscall.SIGSTOP))
	time.Sleep(quiet)
	_ = sendSignal(session, syscall.SIGKILL) // the app's keepalive may have ended it first
	t0 := time.Now()
	for time.Since(t0) < grace+30*time.Second {
		now, err := a.backend("far")
		if err == nil && now.PID != 0 && now.PID != b.PID {
			e.note("reclaim: a new remote backend (PID %d, was %d): not reclaimed", now.PID, b.PID)
			return testbin.Never, false, e.srv.Authentications() - auth0
		}
		// A new authentication: the new session's, not the status the
		// stopped one left.
		if err == nil && now.PID == b.PID && now.Remote != nil && now.Remote.Connection == "connected" && e.srv.Authentications() > auth0 {
			return time.Since(t0), true, e.srv.Authentications() - auth0
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.note("reclaim: the backend not connected again %v after the SIGKILL", grace+30*time.Second)
	return testbin.Never, false, e.srv.Authentications() - auth0
}
