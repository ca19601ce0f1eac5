package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// The layers are folders (README "Layout"; DESIGN "Layout"): a package's
// floor is its top folder's, and it may import only packages of its own
// floor or lower. Within a floor the compiler's ban on import cycles is
// the order; across floors this test is.
const (
	floorPlatform = 0 // platform/: the OS and text primitives
	floorBackend  = 1 // backend/: the engine
	floorApp      = 2 // app/ and the root package main: what a user runs
	floorTop      = 3 // tools, tests, benchmarks and test support
)

// floors names the floor of each top folder; "" is the module's root.
// Tools (cmd/), e2e/, bench/ and internal/ (test support: the fake Hermes,
// the test binary builder) are on top: they may import anything, and no
// production package may import them.
var floors = map[string]int{
	"platform": floorPlatform,
	"backend":  floorBackend,
	// The engine's two folders at the top level, which DESIGN's design
	// card fixes there: the ownership records and the shim.
	"lockfile": floorBackend,
	"watchdog": floorBackend,
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
	{"watchdog", []string{"platform/", "backend/hermes", "lockfile"},
		"the shim starts for every backend: it carries the OS primitives, the Hermes contract and the nonces, nothing of the engine"},
	{"watchdog/remotewd", []string{"platform/", "backend/hermes", "lockfile", "watchdog"},
		"the remote watchdog is the shim on another host: the same parts, nothing of the engine"},
	{"backend/hermes", nil,
		"the Hermes contract is a leaf: every side imports it"},
	{"backend/control", nil,
		"the channel and its error kinds are a leaf: update's errors wrap them, the protocol is built on them"},
	{"backend/logs", nil,
		"a leaf under backend, as its doc says: the standard library only"},
}

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
				checkFloors(t, goos, tags, p)
				checkNarrow(t, goos, tags, p)
			}
		}
	}
}

func checkFloors(t *testing.T, goos, tags string, p listed) {
	t.Helper()
	relPkg, _ := rel(p.pkg)
	floor, ok := floorOf(relPkg)
	if !ok {
		t.Errorf("%s is in no layer's folder (platform/, backend/, app/, cmd/, ...): put it in one, or give its folder a floor here", p.pkg)
		return
	}
	for _, imp := range p.imports {
		relImp, inModule := rel(imp)
		if !inModule {
			continue
		}
		if f, ok := floorOf(relImp); !ok || f > floor {
			t.Errorf("GOOS %s, tags %q: %s (floor %d) imports %s (floor %d): a package imports only its own floor or lower",
				goos, tags, p.pkg, floor, imp, f)
		}
	}
}

func checkNarrow(t *testing.T, goos, tags string, p listed) {
	t.Helper()
	relPkg, _ := rel(p.pkg)
	for _, n := range narrow {
		if n.pkg != relPkg {
			continue
		}
		for _, dep := range p.deps {
			relDep, inModule := rel(dep)
			if !inModule || allowed(relDep, n.allow) {
				continue
			}
			t.Errorf("GOOS %s, tags %q: %s depends on %s: it may depend only on %v in this module (%s)",
				goos, tags, p.pkg, dep, n.allow, n.why)
		}
	}
}

func allowed(relDep string, allow []string) bool {
	for _, a := range allow {
		if relDep == a || strings.HasSuffix(a, "/") && strings.HasPrefix(relDep, a) {
			return true
		}
	}
	return false
}
