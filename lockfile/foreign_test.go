package lockfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/contract/hermes/hermestest"
	"hermes-desktop/platform/proc"
)

func TestSSHLockClaims(t *testing.T) {
	home := t.TempDir()
	write := func(id string, data []byte) {
		dir := filepath.Join(home, "desktop-ssh", id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "backend.lock.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(hermestest.SSHLockID, hermestest.SSHLockJSON(nil))
	write("fedcba9876543210fedcba9876543210", []byte(`{"schemaVersion":9,"pid":777}`))
	write("00000000000000000000000000000000", []byte(`garbage`))
	if err := os.MkdirAll(filepath.Join(home, "desktop-ssh", "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	claims, err := SSHLockClaims(hermes.SSHLockDirs(home, "")...)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]bool{}
	bad := 0
	for _, c := range claims {
		got[c.PID] = c.Err == nil
		if c.Err != nil {
			bad++
		}
	}
	if !got[4242] || got[777] || bad != 2 || len(claims) != 3 {
		t.Errorf("claims: %+v", claims)
	}
	if _, ok := got[777]; !ok {
		t.Errorf("the malformed lock's PID was not read loosely")
	}
}

// writeSSHLockIn writes a valid lock naming pid into dir/<hermestest.SSHLockID>.
func writeSSHLockIn(t *testing.T, dir string, pid int) {
	t.Helper()
	sub := filepath.Join(dir, hermestest.SSHLockID)
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	data := hermestest.SSHLockJSON(func(s string) string { return strings.Replace(s, `"pid":4242`, fmt.Sprintf(`"pid":%d`, pid), 1) })
	if err := os.WriteFile(filepath.Join(sub, "backend.lock.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSSHLockClaimsBothDirs: Hermes Desktop writes SSH locks under
// ~/.hermes/desktop-ssh whatever HERMES_HOME is, so both places are read,
// the same directory once, and an unreadable one fails closed without
// hiding the other's claims.
func TestSSHLockClaimsBothDirs(t *testing.T) {
	base := t.TempDir()
	user := filepath.Join(base, "user")
	userDot := filepath.Join(user, ".hermes")
	writeSSHLockIn(t, filepath.Join(userDot, "desktop-ssh"), 1111)
	custom := filepath.Join(base, "custom-hermes-home")
	writeSSHLockIn(t, filepath.Join(custom, "desktop-ssh"), 2222)
	broken := filepath.Join(base, "broken")
	if err := os.MkdirAll(broken, 0o700); err != nil {
		t.Fatal(err)
	}
	// A file where the directory should be: it cannot be listed.
	if err := os.WriteFile(filepath.Join(broken, "desktop-ssh"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// HERMES_HOME itself a file: Windows says "path not found" for
	// HERMES_HOME\desktop-ssh, as it does when HERMES_HOME is missing.
	fileHome := filepath.Join(base, "file-home")
	if err := os.WriteFile(fileHome, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link-to-dot-hermes")
	linked := os.Symlink(userDot, link) == nil && !proc.UnderWine()

	cases := []struct {
		name               string
		hermesHome, home   string
		want               []int
		wantErr, needsLink bool
	}{
		{"custom HERMES_HOME: both", custom, user, []int{2222, 1111}, false, false},
		{"no home given: HERMES_HOME only", custom, "", []int{2222}, false, false},
		{"HERMES_HOME is ~/.hermes: read once", userDot, user, []int{1111}, false, false},
		{"HERMES_HOME is ~/.hermes/ spelled otherwise", userDot + "/./", user, []int{1111}, false, false},
		{"HERMES_HOME links to ~/.hermes: read once", link, user, []int{1111}, false, true},
		{"HERMES_HOME has no locks", filepath.Join(base, "empty"), user, []int{1111}, false, false},
		{"HERMES_HOME and its parent missing", filepath.Join(base, "gone", "hermes"), user, []int{1111}, false, false},
		{"HERMES_HOME unreadable: fail closed, keep ~'s claims", broken, user, []int{1111}, true, false},
		{"HERMES_HOME is a file: fail closed, keep ~'s claims", fileHome, user, []int{1111}, true, false},
		{"~ is a file: fail closed, keep HERMES_HOME's claims", custom, fileHome, []int{2222}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needsLink && !linked {
				// Windows wants a privilege (or developer mode) for
				// them; Wine reports one made and makes nothing.
				t.Skip("no symbolic links here: Windows wants a privilege for them, Wine makes none")
			}
			claims, err := SSHLockClaims(hermes.SSHLockDirs(tc.hermesHome, tc.home)...)
			if (err != nil) != tc.wantErr {
				t.Errorf("error: got %v, want error %v", err, tc.wantErr)
			}
			var got []int
			for _, c := range claims {
				if c.Err != nil {
					t.Errorf("%s: %v", c.Path, c.Err)
				}
				got = append(got, c.PID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("claimed pids: got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestGatewayClaims: an empty or whitespace-only file claims nothing (and
// so cannot make the reaper fail closed); a malformed non-empty one still
// comes back with its error.
func TestGatewayClaims(t *testing.T) {
	cases := []struct {
		name      string
		pid, lock string // file contents; "-" for no file
		wantPIDs  []int
		wantErrs  int
	}{
		{"no files", "-", "-", nil, 0},
		{"empty pid file", "", "-", nil, 0},
		{"whitespace in both", " \n", "\n\n", nil, 0},
		{"empty pid file, valid lock", "", `{"pid":77}`, []int{77}, 0},
		{"valid pid file", "4321\n", "-", []int{4321}, 0},
		{"malformed pid file", "garbage", "-", []int{0}, 1},
		{"malformed, but names a pid", `{"pid":55,"kind":"other"}`, "", []int{55}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			for name, data := range map[string]string{"gateway.pid": tc.pid, "gateway.lock": tc.lock} {
				if data != "-" {
					if err := os.WriteFile(filepath.Join(home, name), []byte(data), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			claims := GatewayClaims(home)
			var pids []int
			errs := 0
			for _, c := range claims {
				pids = append(pids, c.PID)
				if c.Err != nil {
					errs++
					if !errors.Is(c.Err, hermes.ErrMalformed) {
						t.Errorf("%s: error %v is not hermes.ErrMalformed", c.Path, c.Err)
					}
				}
			}
			if fmt.Sprint(pids) != fmt.Sprint(tc.wantPIDs) || errs != tc.wantErrs {
				t.Errorf("got pids %v with %d errors, want %v with %d", pids, errs, tc.wantPIDs, tc.wantErrs)
			}
		})
	}
}

// TestGatewayClaimsUnderAFile: a file where HERMES_HOME should be hides
// the gateway's PID file rather than proving there is none, so both names
// come back as claims with an error and the reaper fails closed. (Windows
// says "path not found" there, the error it gives for a missing file.)
func TestGatewayClaimsUnderAFile(t *testing.T) {
	home := filepath.Join(t.TempDir(), "hermes-home")
	if err := os.WriteFile(home, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	claims := GatewayClaims(home)
	errs := 0
	for _, c := range claims {
		if c.Err != nil {
			errs++
		}
	}
	if len(claims) != 2 || errs != 2 {
		t.Errorf("got %+v, want 2 claims, both with an error", claims)
	}
}
