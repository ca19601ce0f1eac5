package instance

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"time"

	"hermes-desktop/backend/hermes"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/run"
	"hermes-desktop/lockfile"
)

// AwaitReady waits until the instance has announced its port (READY line or
// ready file) and its health endpoint answers, within the start timeout.
func (i *Instance) AwaitReady(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, i.spec.StartTimeout)
	defer cancel()
	port, err := i.awaitPort(ctx)
	if err != nil {
		return 0, err
	}
	host := reap.ProbeHost(reap.ParseShape(i.spec.Command).Host)
	if err := i.awaitHealth(ctx, host, port); err != nil {
		return 0, err
	}
	return port, nil
}

func (i *Instance) awaitPort(ctx context.Context) (int, error) {
	t := time.NewTicker(run.ReadyPollInterval)
	defer t.Stop()
	for {
		select {
		case port := <-i.ready.Found():
			return port, nil
		case <-i.exited:
			return 0, run.ErrExitedEarly
		case <-ctx.Done():
			return 0, run.TimeoutError(ctx, i.spec, "announce a port (no line matched "+strconv.Quote(i.spec.ReadyRegex)+" and no ready file)")
		case <-t.C:
			if port, ok := readReadyFile(i.readyFile); ok {
				return port, nil
			}
		}
	}
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

func (i *Instance) awaitHealth(ctx context.Context, host string, port int) error {
	base := "http://" + net.JoinHostPort(host, strconv.Itoa(port))
	return run.AwaitHealth(ctx, base, i.spec, i.token, i.exited)
}
