package update

import (
	"context"
	"os/exec"
	"strings"
	"time"

	"hermes-desktop/platform/proc"
)

// bundleOf: Linux has no application bundles.
func bundleOf(string) string { return "" }

// packageOwner asks dpkg whether it owns path; only files under /usr/ are
// asked about (a package never installs into a home directory).
func packageOwner(path string) string {
	if !strings.HasPrefix(path, "/usr/") {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := proc.RunChild(exec.CommandContext(ctx, "dpkg", "-S", path)); err == nil {
		return "dpkg"
	}
	return ""
}
