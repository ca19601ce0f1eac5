package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// layer ranks the module's packages, lowest first: a package may import
// only packages of a lower rank (README "Layout"; DESIGN "Layout").
var layer = map[string]int{
	"internal/proc":     0,
	"internal/envflag":  0,
	"internal/cmdline":  0,
	"internal/human":    0,
	"backend/logs":      0,
	"backend/control":   0,
	"backend/hermes":    0,
	"lockfile":          1,
	"internal/testbin":  1,
	"watchdog":          2,
	"backend/reap":      3,
	"internal/corebin":  2,
	"backend/leakguard": 3,
	"backend/reclaim":   3,
	"backend/settings":  2,
	"backend/update":    2,
	"backend/runspec":   3,
	"backend/instance":  4,
	"backend/model":     5,
	// The control protocol's operations carry model's, reap's, logs' and
	// update's types; the channel and its error kinds (backend/control)
	// stay at the bottom, where update's errors wrap them.
	"backend/control/protocol": 6,
	"backend/handoff":          7,
	"backend/selfupdate":       8,
	"backend/builtin":          3,
	"backend":                  9,
	"internal/lifecycle":       10,
	"internal/desktop":         10,
	"internal/cli":             11,
	"":                         12, // main
	"internal/tsgen":           12,

	// The SSH transport and its test sshd: above the primitives, below
	// the engine that will run remote backends through them.
	"backend/ssh":         1,
	"backend/ssh/sshtest": 2,
}

// topLayer holds what nothing imports: benchmarks, tests, tools.
const topLayer = 12

func rank(pkg string) int {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, "hermes-desktop"), "/")
	if r, ok := layer[rel]; ok {
		return r
	}
	return topLayer
}

// TestLayers checks that no package imports one of its own layer or above,
// in the default build and in the desktop build.
func TestLayers(t *testing.T) {
	// The layering is a property of the source, the same on every OS; the
	// Windows lane runs the test binaries under Wine, with no Go there.
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no Go toolchain to list the packages with: %v", err)
	}
	for _, tags := range []string{"", "desktop,production"} {
		// -e: on a fresh checkout frontend/dist is not built yet, so main's
		// //go:embed has no files; its imports are still known and checked.
		cmd := exec.Command("go", "list", "-e", "-tags", tags, "-f",
			`{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{with .Error}}`+"\t"+`{{.Err}}{{end}}`, "hermes-desktop/...")
		cmd.Env = append(cmd.Environ(), "CGO_ENABLED=1")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list (tags %q): %v: %s", tags, err, stderr.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			line, listErr, _ := strings.Cut(line, "\t")
			if listErr != "" && !strings.Contains(listErr, "no matching files found") {
				t.Errorf("go list (tags %q): %s", tags, listErr)
			}
			fields := strings.Fields(line)
			pkg := fields[0]
			for _, imp := range fields[1:] {
				if imp != "hermes-desktop" && !strings.HasPrefix(imp, "hermes-desktop/") {
					continue
				}
				if rank(imp) >= rank(pkg) && rank(pkg) != topLayer {
					t.Errorf("tags %q: %s (layer %d) imports %s (layer %d): a package imports only lower layers",
						tags, pkg, rank(pkg), imp, rank(imp))
				}
			}
		}
	}
}
