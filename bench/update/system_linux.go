package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"aead.dev/minisign"

	"hermes-desktop/backend/update"
	"hermes-desktop/backend/update/unit"
	"hermes-desktop/internal/testbin"
)

// system is where an update runs: Linux itself, or the Windows build
// under Wine (-wine), each installed as its installer lays it out.
type system struct {
	name, key    string // in the table; in file names
	platform     string // the manifest's key
	exe, license string // the installer's names for them
	marker       string // the install-type file
	wine         bool
}

var (
	linuxSystem = system{name: "Linux", key: "linux", platform: update.Platform(),
		exe: unit.ExeUnix, license: "LICENSE", marker: update.TypePortable + "\n"}
	wineSystem = system{name: "Windows (Wine)", key: "windows", platform: update.PlatformOf("windows", "amd64", ""),
		exe: unit.ExeWindows, license: "LICENSE.txt", marker: update.TypeNSISUser + "\r\n", wine: true}
)

// command is the installed exe with args and the state dir, run as the
// system runs it.
func (s system) command(exe, state string, args ...string) *exec.Cmd {
	if !s.wine {
		return exec.Command(exe, append(args, "--state-dir", state)...)
	}
	return exec.Command(testbin.WineLoader, append(append([]string{testbin.WinPath(exe)}, args...), "--state-dir", testbin.WinPath(state))...)
}

// path is p as the system's programs name it.
func (s system) path(p string) string {
	if s.wine {
		return testbin.WinPath(p)
	}
	return p
}

// build compiles the binary for the system at version with the key
// compiled in, as the e2e tests build their releases.
func (s system) build(dir, version string, pub minisign.PublicKey) string {
	root, err := os.Getwd()
	check(err)
	out := filepath.Join(dir, s.key+"-"+version, s.exe)
	var env []string
	if s.wine {
		env = []string{"GOOS=windows", "GOARCH=amd64"}
	}
	goIn(root, env, "build", "-ldflags", fmt.Sprintf("-X main.version=%s -X main.updatePubKey=%s", version, pub.String()), "-o", out, ".")
	return out
}

// wineVersion says which Wine runs the Windows build.
func wineVersion() string {
	out, err := exec.Command(testbin.WineLoader, "--version").Output()
	if err != nil {
		return "wine: " + err.Error()
	}
	return strings.TrimSpace(string(out))
}
