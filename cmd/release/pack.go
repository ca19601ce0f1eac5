package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"hermes-desktop/backend/update"
	"hermes-desktop/backend/update/unit"
	"hermes-desktop/lockfile"
)

// pack makes the update artifact of the Linux archive and the Windows
// install: their unit (the executable, cores/, the license files; the
// format is backend/update/unit's) as a canonical tar compressed with zstd,
// named hermes-desktop-VERSION-PLATFORM.unit.tar.zst. DIR is an install
// tree or a build output laid out as one; what is not the unit's in it is
// left out.
//
//	go run ./cmd/release pack -platform linux-amd64-webkit41 -version 1.1.0 -out dist STAGE

// packOptions are pack's flags.
type packOptions struct {
	platform, version, out, dir string
}

func cmdPack(args []string, stdout, stderr io.Writer) error {
	var o packOptions
	fs := flag.NewFlagSet("pack", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.platform, "platform", update.Platform(), "the unit's platform: linux-amd64-webkit41, linux-amd64-webkit40, windows-amd64, ...")
	fs.StringVar(&o.version, "version", "", "the release's version, like 1.1.0: the executable's and cores/VERSION's")
	fs.StringVar(&o.out, "out", ".", "where to write the artifact")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || o.version == "" {
		return errors.New("pack: -version and one DIR (the unit: the executable, cores/, the license files) are required")
	}
	o.dir = fs.Arg(0)
	if err := checkUnit(o.dir, o.platform, o.version); err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	path := filepath.Join(o.out, update.UnitArtifactName(o.version, o.platform))
	var sum unit.Sum
	err := lockfile.WriteAtomic(path, 0o644, func(w io.Writer) error {
		var err error
		sum, err = unit.Compress(w, o.dir)
		return err
	})
	if err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	art, err := describe(path, "")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "packed %s: %d bytes, sha256 %s\n", path, art.Size, art.SHA256)
	fmt.Fprintf(stdout, "  its unit: %d bytes, unit_sha256 %s\n", sum.Size, sum.SHA256)
	return nil
}

// checkUnit checks the unit in dir before it is packed or signed for
// platform at version: the executable the platform's installs have, of
// its flavour, and cores/ of that version (an update without them would
// leave the remote backends with the old version's).
func checkUnit(dir, platform, version string) error {
	if _, err := update.ParseVersion(version); err != nil {
		return err
	}
	goos, _, _ := strings.Cut(platform, "-")
	exe := unit.ExeUnix
	switch goos {
	case "windows":
		exe = unit.ExeWindows
	case "darwin":
		return fmt.Errorf("%s updates with its .app bundle (a .tar.gz), not a unit", platform)
	}
	if fi, err := os.Lstat(filepath.Join(dir, exe)); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s holds no %s, the executable of %s installs", dir, exe, platform)
	}
	if err := checkFlavour(filepath.Join(dir, exe), exe, platform); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(dir, unit.CoresDir, "VERSION"))
	if err != nil {
		return fmt.Errorf("the unit's remote cores: %w (make remote-cores builds them)", err)
	}
	if got := strings.TrimSpace(string(data)); got != version {
		return fmt.Errorf("%s/VERSION says %q, not %s: build the cores with the release's version", filepath.Join(dir, unit.CoresDir), got, version)
	}
	return nil
}

// describeArtifact checks an artifact for o.platform and describes it: a
// unit artifact gets its unit's digest, read by unpacking it (which checks
// it is canonical); only the macOS bundle is not a unit.
func describeArtifact(o signOptions) (update.Artifact, error) {
	goos, _, _ := strings.Cut(o.platform, "-")
	isUnit := strings.HasSuffix(o.artifact, update.UnitArtifactSuffix)
	if goos == "darwin" && !isUnit {
		if err := checkFlavour(o.artifact, o.artifact, o.platform); err != nil {
			return update.Artifact{}, fmt.Errorf("sign: %w", err)
		}
		return describe(o.artifact, o.url)
	}
	if !isUnit {
		return update.Artifact{}, fmt.Errorf("sign: %s is not a unit artifact (*%s): an update of the Linux archive or the Windows install replaces the executable with its cores; make one with `release pack`",
			o.artifact, update.UnitArtifactSuffix)
	}
	tmp, err := os.MkdirTemp("", "release-unit-")
	if err != nil {
		return update.Artifact{}, fmt.Errorf("sign: %w", err)
	}
	defer os.RemoveAll(tmp)
	f, err := os.Open(o.artifact)
	if err != nil {
		return update.Artifact{}, fmt.Errorf("sign: %w", err)
	}
	defer f.Close()
	sum, err := unit.ExtractArtifact(f, tmp)
	if err == nil {
		err = checkUnit(tmp, o.platform, o.version)
	}
	if err != nil {
		return update.Artifact{}, fmt.Errorf("sign: %s: %w", o.artifact, err)
	}
	art, err := describe(o.artifact, o.url)
	art.UnitSHA256, art.UnitSize = sum.SHA256, sum.Size
	return art, err
}

// checkFlavour refuses a Linux desktop build (the executable at path, said
// as name) for another flavour's platform key: an install takes only its
// own key, and a WebKitGTK 4.0 binary offered to 4.1 installs would fail
// their smoke test at every check (or, where both libraries are
// installed, pass it as the wrong build).
func checkFlavour(path, name, platform string) error {
	got, err := artifactFlavour(path)
	if err != nil {
		return err
	}
	if want := update.PlatformFlavour(platform); got != want {
		if got == "" {
			return fmt.Errorf("%s links no WebKitGTK, but %s is the %s build's key", name, platform, update.FlavourName(want))
		}
		return fmt.Errorf("%s is the %s build: its platform is %s, not %s",
			name, update.FlavourName(got), update.PlatformOf("linux", "amd64", got), platform)
	}
	return nil
}
