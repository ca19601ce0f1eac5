package hermes

// Ready lines: a backend prints one on stdout once it listens, N being the
// port it bound.
const (
	// ServeReadyPrefix is the start of the line `hermes serve` prints, the
	// port following it.
	ServeReadyPrefix = "HERMES_BACKEND_READY port="
	// DashboardReadyPrefix is the start of the line `hermes dashboard`
	// prints, the port following it.
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
