//go:build !linux

package proc

import (
	"context"
	"log/slog"
	"time"
)

// ForeignWait is Linux's: see collect_linux.go.
const ForeignWait = time.Second

// CollectOrphans returns at once outside Linux: without a child subreaper no
// orphan is ever handed to this process (macOS gives them to launchd,
// Windows has no zombies, only handles, and every one we open we close), and
// every child it starts has an owner that waits for it.
func CollectOrphans(context.Context, *slog.Logger) {}
