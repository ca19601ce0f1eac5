package unit

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// faultStopAfter, set at build time only by the tests that crash an
// update (-ldflags "-X hermes-desktop/backend/update/unit.faultStopAfter=2"),
// or by this package's tests in their helper process, stops a replacement
// at that step: 0 once the journal is written, N once N entries have moved,
// N+1 once the outcome is journaled. It says so on stderr and waits there
// to be killed. Empty in every release build.
var faultStopAfter string

// faultStop is where a replacement may be stopped: after step.
func faultStop(step int, what string) {
	if faultStopAfter == "" || faultStopAfter != strconv.Itoa(step) {
		return
	}
	fmt.Fprintf(os.Stderr, "unit: fault: stopped after step %d (%s); waiting to be killed\n", step, what)
	for {
		time.Sleep(time.Hour) // parked until the test's SIGKILL; a timer keeps Go's deadlock check quiet
	}
}
