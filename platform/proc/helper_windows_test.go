package proc

import (
	"os"
	"testing"
	"time"

	"hermes-desktop/internal/sleeper"
)

func TestMain(m *testing.M) {
	sleeper.Main()
	os.Exit(m.Run())
}

// memberWait is how long a killed process may take to be seen gone: Windows
// (and Wine) end a terminated process in about a millisecond.
const memberWait = 5 * time.Second

func mustLookup(t *testing.T, pid int) Identity {
	t.Helper()
	id, err := Lookup(pid)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
