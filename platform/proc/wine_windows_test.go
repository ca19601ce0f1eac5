package proc

import (
	"os"
	"testing"

	"golang.org/x/sys/windows/registry"
)

// TestUnderWine checks the ntdll export against the registry key every Wine
// prefix has, a second witness that no Windows installation carries.
func TestUnderWine(t *testing.T) {
	k, err := registry.OpenKey(registry.CURRENT_USER, `Software\Wine`, registry.QUERY_VALUE)
	hasKey := err == nil
	if hasKey {
		k.Close()
	}
	if got := UnderWine(); got != hasKey {
		t.Fatalf("UnderWine() = %v, want %v (HKCU\\Software\\Wine present: %v)", got, hasKey, hasKey)
	}
	t.Logf("under Wine: %v (%s)", UnderWine(), os.Getenv("WINEPREFIX"))
}
