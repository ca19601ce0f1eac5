package instance

import (
	"context"
	"encoding/json"
	"net"
	"strconv"

	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/run"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/lockfile"
)

// AwaitReady waits until the instance has announced its port (READY line or
// ready file) and its health endpoint answers, within the start timeout.
func (i *Instance) AwaitReady(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, i.spec.StartTimeout)
	defer cancel()
	port, err := i.out.awaitPort(ctx, i.spec, i.exited)
	if err != nil {
		return 0, err
	}
	host := reap.ProbeHost(reap.ParseShape(i.spec.Command).Host)
	base := "http://" + net.JoinHostPort(host, strconv.Itoa(port))
	if err := run.AwaitHealth(ctx, base, i.spec, i.token, i.exited); err != nil {
		return 0, err
	}
	return port, nil
}

// readReadyFile reads {"port":N} from the ready file, if it is there yet.
func readReadyFile(path string) (int, bool) {
	data, err := lockfile.ReadLimited(path, 4096)
	if err != nil {
		return 0, false
	}
	var v hermes.ReadyFile
	if json.Unmarshal(data, &v) != nil || v.Port <= 0 || v.Port > 65535 {
		return 0, false
	}
	return v.Port, true
}
