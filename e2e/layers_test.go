package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// The layers are folders (docs/DESIGN.md "Layers"): a package's floor is
// its top folder's, and it may import only packages of its own floor or
// lower. Within a floor the compiler's ban on import cycles is the order;
// across floors this test is.
const (
	floorPlatform = iota // platform/: the OS and text primitives
	floorContract        // contract/: the leaves every side speaks (Hermes, error kinds, log lines)
	floorLockfile        // lockfile/: ownership records and locks
	floorWatchdog        // watchdog/: the shim and its client side
	floorEngine          // backend/: the engine
	floorApp             // app/ and the root package main: what a user runs
	floorTop             // tools, tests, benchmarks and test support
)

// floors names the floor of each top folder; "" is the module's root.
// Tools (cmd/), e2e/, bench/ and internal/ (test support: the fake Hermes,
// the test binary builder) are on top: they may import anything, and no
// production package may import them.
var floors = map[string]int{
	"platform": floorPlatform,
	"contract": floorContract,
	"lockfile": floorLockfile,
	"watchdog": floorWatchdog,
	"backend":  floorEngine,
	"app":      floorApp,
	"":         floorApp,
	"cmd":      floorTop,
	"e2e":      floorTop,
	"bench":    floorTop,
	"internal": floorTop,
}

// narrow lists packages whose whole dependency set (direct and indirect)
// within the module is held tighter than their floor allows, with why.
var narrow = []struct {
	pkg   string
	allow []string // import paths relative to the module; "x/" allows the folder
	why   string
}{
	{"contract/hermes", nil,
		"the Hermes contract is a leaf: every side imports it"},
	{"contract/errkind", nil,
		"the error kinds that survive the control channel are a leaf: update's errors wrap them, the protocol is built on them"},
	{"contract/muxwire", nil,
		"the protocol inside a remote host's ssh session is a leaf: the core serves it, the app speaks it"},
	{"watchdog/remotemux", []string{"platform/", "contract/muxwire"},
		"the remote core's mux server runs commands and dials: it takes in neither the remote watchdog nor the lock files"},
	{"watchdog/netns", []string{"platform/"},
		"a remote backend's isolation (namespace, relay, egress proxy) takes in neither the remote watchdog's wire nor the lock files"},
	{"contract/logs", nil,
		"the log line and its files are a leaf: the standard library only"},
	{"backend/transport", nil,
		"the transport vocabulary (Transport, Status, Channel, Target) is a leaf: ssh and wsl implement it, remote uses it"},
	{"backend/reapreport", nil,
		"the boot reap's report is a leaf: what reads one does not take in the reaper"},
	{"backend/model", modelLeaves,
		"the status the page and the CLI read, whose structs cmd/tsgen reads, imports nothing but leaves, not the engine"},
}

// modelLeaves is what backend/model may depend on: the floors below the
// engine and the engine's leaves, each importing only those floors.
var modelLeaves = []string{"platform/", "contract/", "lockfile",
	"backend/leakguard", "backend/reapreport", "backend/settings", "backend/update", "backend/update/unit", "backend/update/bundle",
	"backend/update/delta", "backend/update/transfer"}

// rel returns pkg's path relative to the module ("" for the root) and
// whether it is in the module at all.
func rel(pkg string) (string, bool) {
	if pkg == "hermes-desktop" {
		return "", true
	}
	r, ok := strings.CutPrefix(pkg, "hermes-desktop/")
	return r, ok
}

// floorOf returns the floor of a package of the module, by its top folder.
func floorOf(relPkg string) (int, bool) {
	top, _, _ := strings.Cut(relPkg, "/")
	f, ok := floors[top]
	return f, ok
}

// listed is one package as go list reports it.
type listed struct {
	pkg     string
	imports []string // direct
	deps    []string // direct and indirect
}

// goList lists the module's packages for one OS and set of tags.
func goList(t *testing.T, goos, tags string) []listed {
	t.Helper()
	// -e: on a fresh checkout frontend/dist is not built yet, so main's
	// //go:embed has no files; its imports are still known and checked.
	cmd := exec.Command("go", "list", "-e", "-tags", tags, "-f",
		`{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`+"\t"+`{{range .Deps}} {{.}}{{end}}`+"\t"+`{{with .Error}}{{.Err}}{{end}}`,
		"hermes-desktop/...")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=1", "GOOS="+goos)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list (GOOS %s, tags %q): %v: %s", goos, tags, err, stderr.String())
	}
	var ps []listed
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		if e := parts[2]; e != "" && !strings.Contains(e, "no matching files found") {
			t.Errorf("go list (GOOS %s, tags %q): %s", goos, tags, e)
		}
		fields := strings.Fields(parts[0])
		ps = append(ps, listed{pkg: fields[0], imports: fields[1:], deps: strings.Fields(parts[1])})
	}
	return ps
}

// TestLayers checks that no package imports from a floor above its own and
// that the narrow packages keep to their lists, on each desktop OS, in the
// default build and in the desktop build.
func TestLayers(t *testing.T) {
	// The layering is a property of the source, the same on every OS; the
	// Windows lane runs the test binaries under Wine, with no Go there.
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no Go toolchain to list the packages with: %v", err)
	}
	for _, goos := range []string{"linux", "windows", "darwin"} {
		for _, tags := range []string{"", "desktop,production"} {
			for _, p := range goList(t, goos, tags) {
				for _, msg := range append(floorProblems(p), narrowProblems(p)...) {
					t.Errorf("GOOS %s, tags %q: %s", goos, tags, msg)
				}
			}
		}
	}
}

// TestLayersCatchPlanted feeds the checks planted violations, one per
// rule, and a package that keeps them, so that neither check can pass by
// checking nothing.
func TestLayersCatchPlanted(t *testing.T) {
	const m = "hermes-desktop/"
	cases := []struct {
		p    listed
		want string // in the one problem reported; "" for none
	}{
		{listed{pkg: m + "lockfile", imports: []string{m + "watchdog"}}, "lockfile (floor 2) imports hermes-desktop/watchdog (floor 3)"},
		{listed{pkg: m + "watchdog", imports: []string{m + "backend/instance"}}, "watchdog (floor 3) imports hermes-desktop/backend/instance (floor 4)"},
		{listed{pkg: m + "contract/hermes", imports: []string{m + "lockfile"}}, "contract/hermes (floor 1) imports hermes-desktop/lockfile (floor 2)"},
		{listed{pkg: m + "backend/reap", imports: []string{m + "app/cli"}}, "backend/reap (floor 4) imports hermes-desktop/app/cli (floor 5)"},
		{listed{pkg: m + "backend/reap", imports: []string{m + "internal/testbin"}}, "imports hermes-desktop/internal/testbin (floor 6)"},
		{listed{pkg: m + "nowhere/x"}, "is in no layer's folder"},
		{listed{pkg: m + "contract/logs", deps: []string{m + "platform/proc"}}, "contract/logs depends on hermes-desktop/platform/proc"},
		{listed{pkg: m + "contract/hermes", imports: []string{"fmt"}, deps: []string{"fmt"}}, ""},
		{listed{pkg: m + "watchdog", imports: []string{m + "lockfile", m + "contract/hermes"}}, ""},
		{listed{pkg: m + "backend/model", imports: []string{m + "backend/instance"},
			deps: []string{m + "backend/settings", m + "backend/instance"}}, "backend/model depends on hermes-desktop/backend/instance"},
		{listed{pkg: m + "backend/model", imports: []string{"fmt", m + "backend/reapreport", m + "backend/settings", m + "contract/logs"},
			deps: []string{"fmt", m + "platform/proc", m + "contract/hermes", m + "lockfile", m + "backend/leakguard",
				m + "backend/reapreport", m + "backend/settings", m + "backend/update", m + "contract/logs"}}, ""},
	}
	for _, c := range cases {
		got := append(floorProblems(c.p), narrowProblems(c.p)...)
		switch {
		case c.want == "" && len(got) != 0:
			t.Errorf("%s: got %q, want no problem", c.p.pkg, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
			t.Errorf("%s: got %q, want one problem with %q", c.p.pkg, got, c.want)
		}
	}
}

// floorProblems says which of p's imports climb above its floor.
func floorProblems(p listed) []string {
	relPkg, _ := rel(p.pkg)
	floor, ok := floorOf(relPkg)
	if !ok {
		return []string{fmt.Sprintf("%s is in no layer's folder (platform/, contract/, backend/, app/, cmd/, ...): put it in one, or give its folder a floor here", p.pkg)}
	}
	var out []string
	for _, imp := range p.imports {
		relImp, inModule := rel(imp)
		if !inModule {
			continue
		}
		if f, ok := floorOf(relImp); !ok || f > floor {
			out = append(out, fmt.Sprintf("%s (floor %d) imports %s (floor %d): a package imports only its own floor or lower",
				relPkg, floor, imp, f))
		}
	}
	return out
}

// narrowProblems says which of a narrow package's dependencies its list
// does not allow.
func narrowProblems(p listed) []string {
	relPkg, _ := rel(p.pkg)
	var out []string
	for _, n := range narrow {
		if n.pkg != relPkg {
			continue
		}
		for _, dep := range p.deps {
			relDep, inModule := rel(dep)
			if !inModule || allowed(relDep, n.allow) {
				continue
			}
			out = append(out, fmt.Sprintf("%s depends on %s: it may depend only on %v in this module (%s)",
				relPkg, dep, n.allow, n.why))
		}
	}
	return out
}

func allowed(relDep string, allow []string) bool {
	for _, a := range allow {
		if relDep == a || strings.HasSuffix(a, "/") && strings.HasPrefix(relDep, a) {
			return true
		}
	}
	return false
}
