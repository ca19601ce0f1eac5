package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/backend/update/unit"
	"hermes-desktop/internal/testbin"
)

// TestPackedUnitIsTheInstalledOne: the Linux archive's install.sh, run
// for a throwaway HOME, installs exactly the unit pack made from the
// archive: the unit tar rebuilt from the installed copy has the digest the
// manifest records (what a patch is made against, and checked by).
func TestPackedUnitIsTheInstalledOne(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	// A dynamic program, as the desktop build is (install.sh asks ldd).
	archive := unitDir(t, unit.ExeUnix, testbin.LinkELF(t, t.TempDir(), "app"), "1.1.0")
	for rel, body := range map[string]string{
		"THIRD_PARTY_LICENSES":                        "modules",
		"hermes-desktop.desktop":                      "[Desktop Entry]\nName=Hermes Desktop\nExec=hermes-desktop\n",
		"icons/hicolor/16x16/apps/hermes-desktop.png": "png",
	} {
		p := filepath.Join(archive, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, err := os.ReadFile("../../packaging/linux/install.sh")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(archive, "install.sh"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	art, said := pack(t, archive, "linux-amd64", "1.1.0")
	if art == "" {
		t.Fatalf("pack: %s", said)
	}
	home := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(archive, "install.sh"))
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	installed, err := unit.Digest(filepath.Join(home, ".local", "lib", "hermes-desktop"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(said, "unit_sha256 "+installed.SHA256) {
		t.Errorf("the installed unit is %v; pack said %q", installed, said)
	}

	// What self-updates leave beside it (the version replaced, a core
	// whose name no install recorded) goes with --uninstall.
	lib := filepath.Join(home, ".local", "lib", "hermes-desktop")
	for _, p := range []string{"hermes-desktop.old/cores/VERSION", "cores/hermes-desktop-core-linux-riscv64.gz", ".hermes-desktop.update-1/x"} {
		noErr(t, os.MkdirAll(filepath.Dir(filepath.Join(lib, p)), 0o755))
		noErr(t, os.WriteFile(filepath.Join(lib, p), []byte("x"), 0o644))
	}
	cmd = exec.Command("bash", filepath.Join(lib, "install.sh"), "--uninstall")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install.sh --uninstall: %v\n%s", err, out)
	}
	if left, err := os.ReadDir(lib); err == nil {
		t.Errorf("after --uninstall %s holds %v, want it gone", lib, left)
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
