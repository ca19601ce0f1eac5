package cli

import (
	"os"
	"time"

	"hermes-desktop/backend"
)

// faultExitAfterAdopt, set at build time only by the update tests
// (-ldflags "-X hermes-desktop/app/cli.faultExitAfterAdopt=500ms"),
// makes an instance that adopted its backends in a handoff exit 1 that long
// afterwards, without teardown: a new version that dies right after an
// update, for the health window to catch. Empty in every release build.
var faultExitAfterAdopt string

// injectFaults arms the build-time faults for this run, if any.
func injectFaults(cfg backend.Config) {
	if faultExitAfterAdopt == "" || cfg.AdoptFrom == nil {
		return
	}
	if d, err := time.ParseDuration(faultExitAfterAdopt); err == nil {
		time.AfterFunc(d, func() { os.Exit(1) })
	}
}
