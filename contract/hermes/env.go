package hermes

// Environment variables a launcher gives `hermes serve` and `hermes
// dashboard`, and Hermes' own variables a launcher reads.
const (
	// EnvDesktop set to DesktopOn, together with EnvSessionToken, marks a
	// backend as desktop-owned: it never attaches to another backend, and
	// Hermes' host discovery ignores it.
	EnvDesktop = "HERMES_DESKTOP"
	// EnvParentPID is the PID Hermes' parent watchdog follows: when that
	// process is gone the backend exits.
	EnvParentPID = "HERMES_PARENT_PID"
	// EnvParentMarker is the start marker of EnvParentPID's process (see
	// proc.HermesMarker), so a reused PID is not taken for the parent. It
	// and EnvParentNonce are both set or both absent.
	EnvParentMarker = "HERMES_PARENT_START_MARKER"
	// EnvParentNonce is a per-backend random nonce (16 bytes, hex): the
	// process's environment then proves which launcher started it. Hermes
	// drops it from its stdio MCP servers' environment.
	EnvParentNonce = "HERMES_PARENT_NONCE"
	// EnvSessionToken is the session token the backend requires on /api/*
	// (see NewSessionToken); when unset or empty the backend makes its own.
	EnvSessionToken = "HERMES_DASHBOARD_SESSION_TOKEN"
	// EnvHome is Hermes' home directory; HomeDirName under the user's home
	// when unset.
	EnvHome = "HERMES_HOME"
	// EnvReadyFile names a file the backend writes {"port":N} to, atomically,
	// once it listens (ReadyFile).
	EnvReadyFile = "HERMES_DESKTOP_READY_FILE"
	// EnvGatewayLockDir is where Hermes keeps its host records
	// (host-<role>.json, .token, .lock); $XDG_STATE_HOME/hermes/gateway-locks
	// when unset.
	EnvGatewayLockDir = "HERMES_GATEWAY_LOCK_DIR"
)

// DesktopOn is the value of EnvDesktop that marks a desktop-owned backend.
const DesktopOn = "1"

// HomeDirName is Hermes' home under the user's home directory, the default
// of EnvHome; SSH locks live under it whatever EnvHome says (SSHLockDirs).
const HomeDirName = ".hermes"
