package hermes

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// GatewayFileNames are the gateway's PID files in $HERMES_HOME (the
// gateway writes gateway.pid; gateway.lock has the same schema).
var GatewayFileNames = [...]string{"gateway.pid", "gateway.lock"}

// GatewayKind is the kind a gateway PID file records.
const GatewayKind = "hermes-gateway"

// GatewayPID is the gateway's PID file: a JSON object, or a bare integer
// in legacy files. Its PID counts only while alive and, when StartTime is
// present, only if it still matches.
type GatewayPID struct {
	PID  int    `json:"pid"`
	Kind string `json:"kind"` // GatewayKind, or "" in older files
	// Argv is the gateway's command line.
	Argv []string `json:"argv"`
	// StartTime is the process's Linux start time in clock ticks; nil when
	// the file has none.
	StartTime  *uint64 `json:"start_time"`
	HermesHome string  `json:"hermes_home"`
}

// ParseGatewayPID decodes a gateway PID file. An empty or whitespace-only
// file is ErrNoRecord (Hermes reads it as "no gateway"); anything else that
// is not a valid record is ErrMalformed.
func ParseGatewayPID(data []byte) (*GatewayPID, error) {
	trimmed := strings.TrimSpace(string(data))
	if trimmed == "" {
		return nil, ErrNoRecord
	}
	if n, err := strconv.Atoi(trimmed); err == nil {
		if n < 1 || n > maxPID {
			return nil, fmt.Errorf("%w: pid %d", ErrMalformed, n)
		}
		return &GatewayPID{PID: n}, nil
	}
	var g GatewayPID
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if g.PID < 1 || g.PID > maxPID {
		return nil, fmt.Errorf("%w: pid %d", ErrMalformed, g.PID)
	}
	if g.Kind != "" && g.Kind != GatewayKind {
		return nil, fmt.Errorf("%w: kind %q", ErrMalformed, g.Kind)
	}
	return &g, nil
}
