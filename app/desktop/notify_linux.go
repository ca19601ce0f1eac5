//go:build desktop

package desktop

import (
	"context"
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"
)

// notifyTimeout bounds the notification server's answer: a hung server
// must not hold the caller (the first close of the window) for D-Bus's 25 s.
const notifyTimeout = 5 * time.Second

// Notify shows a desktop notification through the session's notification
// server (org.freedesktop.Notifications, the Desktop Notifications
// Specification), with the app's icon. It fails when no server answers.
func Notify(summary, body string) error {
	conn, err := sessionBus()
	if err != nil {
		return fmt.Errorf("desktop: notify: session bus: %w", err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	var id uint32
	err = conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications").CallWithContext(ctx,
		"org.freedesktop.Notifications.Notify", 0,
		"Hermes Desktop", uint32(0), "hermes-desktop", summary, body, []string{}, map[string]dbus.Variant{}, int32(-1)).Store(&id)
	if err != nil {
		return fmt.Errorf("desktop: notify: %w", err)
	}
	return nil
}
