package watchdog

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/proc"
)

// helperEnv makes the test binary, re-run as a child, one of the helpers
// below instead of running the tests (TestMain).
const helperEnv = "HERMES_WATCHDOG_TEST_HELPER"

// Helpers.
const (
	// helperShimEnd is the shim's side of the protocol and nothing more:
	// it parses the shim's flags, opens the ends they name, waits at the
	// start barrier, reports itself, then prints each lifeline line and
	// finally the reason the lifeline ended.
	helperShimEnd = "shim-end"
	// helperSleep sleeps for helperLife: a bystander, or a backend that
	// only a kill ends early.
	helperSleep = "sleep"
	// helperExitWordOwner makes this process's exit word, prints "word
	// <fd>" and sleeps for helperLife: an owner to kill (Linux).
	helperExitWordOwner = "exit-word-owner"
)

// helperLife bounds a helper that nobody ends: long past any test, short
// enough that one a crashed test run left behind goes on its own.
const helperLife = 2 * time.Minute

func TestMain(m *testing.M) {
	switch h := os.Getenv(helperEnv); h {
	case "":
		os.Exit(testbin.Main(m))
	case helperShimEnd:
		os.Exit(shimEndHelper(os.Args[1:]))
	case helperSleep:
		time.Sleep(helperLife)
		os.Exit(0)
	case helperExitWordOwner:
		f, err := ownerExitWord()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("word %d\n", f.Fd())
		time.Sleep(helperLife)
		os.Exit(0)
	default:
		fmt.Fprintf(os.Stderr, "%s=%q: no such helper\n", helperEnv, h)
		os.Exit(2)
	}
}

// shimEndHelper runs helperShimEnd with the shim's own code for each step.
func shimEndHelper(args []string) int {
	o, err := parseShimFlags(args, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitUsage
	}
	lifeline, report, err := openShimFDs(o)
	if err != nil || lifeline == nil || report == nil {
		fmt.Fprintln(os.Stderr, "open the shim's ends:", err)
		return exitUsage
	}
	if !awaitStart(lifeline) {
		return exitParentGone
	}
	self, err := proc.Self()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := writeReport(report, Report{PID: self.PID, Start: self.Start}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	report.Close()
	reason, _ := readLifeline(context.Background(), lifeline, func(line string) { fmt.Println(line) })
	fmt.Println(reason)
	return 0
}
