package sshbridge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BuildClient builds fakessh for goos (amd64) into dir and returns its
// path: dir/ssh, or dir/ssh.exe for windows, the name the app runs.
func BuildClient(t testing.TB, goos, dir string) string {
	t.Helper()
	name := "ssh"
	if goos == "windows" {
		name = "ssh.exe"
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, "hermes-desktop/internal/sshbridge/fakessh")
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GOOS" && k != "GOARCH" && k != "CGO_ENABLED" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build fakessh for %s: %v\n%s", goos, err, b)
	}
	return out
}
