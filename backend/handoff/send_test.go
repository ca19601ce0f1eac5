package handoff

import (
	"io"
	"log/slog"
	"testing"

	"hermes-desktop/backend/control/protocol"
)

// A handoff runs in the mode asked for, restart for none; adopt where this
// instance has no launcher job runs as restart on Windows (adoptWithoutJob):
// the successor would refuse every backend outside the job it joins.
// Before, it went ahead in adopt mode and failed every time.
func TestHandoffModeFor(t *testing.T) {
	s := NewSender(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, nil)
	for _, tc := range []struct{ asked, want protocol.HandoffMode }{
		{"", protocol.HandoffRestart},
		{protocol.HandoffRestart, protocol.HandoffRestart},
		{protocol.HandoffAdopt, adoptWithoutJob},
		{"sideways", "sideways"}, // refused by Handoff as unknown
	} {
		if got := s.modeFor(tc.asked); got != tc.want {
			t.Errorf("modeFor(%q) with no launcher job: got %q, want %q", tc.asked, got, tc.want)
		}
	}
}
