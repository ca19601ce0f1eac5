package hermes

// Ready lines: a backend prints one on stdout once it listens, N being the
// port it bound.
const (
	// ServeReadyPrefix, followed by the port, is the line `hermes serve`
	// prints.
	ServeReadyPrefix = "HERMES_BACKEND_READY port="
	// DashboardReadyPrefix, followed by the port, is the line `hermes
	// dashboard` prints.
	DashboardReadyPrefix = "HERMES_DASHBOARD_READY port="
	// ReadyRegex matches either ready line; its first group is the port.
	ReadyRegex = `HERMES_(?:BACKEND|DASHBOARD)_READY port=(\d+)`
)

// ReadyFile is the content of the file EnvReadyFile names, {"port":N},
// written atomically once the backend listens.
type ReadyFile struct {
	// Port is the port the backend listens on; 0 means not yet known.
	Port int `json:"port"`
}
