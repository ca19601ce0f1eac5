package remotewd

import (
	"os"
	"testing"

	"hermes-desktop/internal/testbin"
)

// TestMain removes the hermes-desktop binary the claim tests build.
func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }
