package ssh_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/ssh"
	"hermes-desktop/internal/testbin"
)

// Environment of the helper process: the test binary re-run as an app that
// connects a Host and then waits to be killed.
const (
	envHelper      = "HERMES_SSH_TEST_HELPER" // the destination
	envHelperConf  = "HERMES_SSH_TEST_CONFIG"
	envHelperCores = "HERMES_SSH_TEST_CORES"
	envHelperSelf  = "HERMES_SSH_TEST_SELF"
)

// helperConnected is the line the helper prints once its Host is connected.
const helperConnected = "connected"

func TestMain(m *testing.M) {
	if dest := os.Getenv(envHelper); dest != "" {
		os.Exit(runHelper(dest))
	}
	os.Exit(testbin.Main(m))
}

// runHelper connects a Host and blocks until killed; it never closes it.
func runHelper(dest string) int {
	cores, err := openCores(os.Getenv(envHelperCores))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	h, err := ssh.New(ssh.Options{
		Destination: dest,
		Boot:        remotecore.NewBoot(cores),
		ConfigFile:  os.Getenv(envHelperConf),
		Self:        os.Getenv(envHelperSelf),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Connect(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(helperConnected)
	select {} // until the test SIGKILLs us
}
