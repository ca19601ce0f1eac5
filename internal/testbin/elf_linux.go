package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// LinkELF links a real ELF program, DIR/OUT, that needs the shared
// libraries named by sonames (DT_NEEDED), as the desktop build needs its
// WebKitGTK: each soname is a stand-in library the C compiler builds in dir
// first. The test is skipped where there is no gcc.
func LinkELF(t *testing.T, dir, out string, sonames ...string) string {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to link an ELF program with")
	}
	main := filepath.Join(dir, "main.c")
	if err := os.WriteFile(main, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-o", filepath.Join(dir, out), main, "-L" + dir, "-Wl,--no-as-needed"}
	for _, so := range sonames {
		stub := filepath.Join(dir, so)
		if _, err := os.Stat(stub); err != nil {
			if msg, err := exec.Command(cc, "-shared", "-fPIC", "-o", stub, "-Wl,-soname,"+so, main).CombinedOutput(); err != nil {
				t.Fatalf("gcc %s: %v: %s", so, err, msg)
			}
		}
		args = append(args, "-l:"+so)
	}
	if msg, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v: %s", args, err, msg)
	}
	return filepath.Join(dir, out)
}
