package remotewd

import (
	"testing"

	"hermes-desktop/watchdog/netns"
)

// What isolation costs a start: the probe, the namespace's clone, the
// relay's start (compare BenchmarkStartHostNetwork). Each iteration is one
// remote watchdog from its start to its backend listening, then stopped.
func BenchmarkStartIsolated(b *testing.B) { benchStart(b) }

// BenchmarkStartHostNetwork is BenchmarkStartIsolated with --netns=off.
func BenchmarkStartHostNetwork(b *testing.B) { benchStart(b, "--netns="+NetnsOff) }

func benchStart(b *testing.B, flags ...string) {
	b.Setenv(childEnv, "1")
	if len(flags) == 0 {
		if err := netns.Probe(); err != nil {
			b.Skipf("this machine refuses the namespaces: %v", err)
		}
	}
	for b.Loop() {
		w := runWatchdog(b, nil, flags...)
		b.StopTimer()
		w.end()
		b.StartTimer()
	}
}

// What the relay costs a connection: one request on a new connection
// through the backend's socket (compare BenchmarkRequestHostPort).
func BenchmarkRequestThroughSocket(b *testing.B) {
	b.Setenv(childEnv, "1")
	if err := netns.Probe(); err != nil {
		b.Skipf("this machine refuses the namespaces: %v", err)
	}
	w := runWatchdog(b, nil)
	for b.Loop() {
		if _, err := w.viaSocket("/"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRequestHostPort is one request on a new connection to a
// backend in the host's network.
func BenchmarkRequestHostPort(b *testing.B) {
	b.Setenv(childEnv, "1")
	w := runWatchdog(b, nil, "--netns="+NetnsOff)
	for b.Loop() {
		if _, err := w.viaHostPort("/"); err != nil {
			b.Fatal(err)
		}
	}
}
