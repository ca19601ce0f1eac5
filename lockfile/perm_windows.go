package lockfile

import (
	"fmt"
	"io/fs"

	"golang.org/x/sys/windows"
)

// openNoFollow is 0 on Windows: reparse points are refused by the Lstat
// checks before any open.
const openNoFollow = 0

// checkPrivate refuses paths whose owner is not the current user. Windows
// has no mode bits to check: the profile directory's inherited ACL is what
// keeps other users out, as for every per-user application state.
func checkPrivate(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeIrregular != 0 {
		return fmt.Errorf("%w: %s is a reparse point", ErrUnsafePath, path)
	}
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("lockfile: read owner of %s: %w", path, err)
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return fmt.Errorf("lockfile: read owner of %s: %w", path, err)
	}
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("lockfile: read current user: %w", err)
	}
	if !owner.Equals(tu.User.Sid) {
		admins, aerr := windows.CreateWellKnownSid(windows.WinBuiltinAdministratorsSid)
		if aerr != nil || !owner.Equals(admins) {
			return fmt.Errorf("%w: %s is owned by %s, not by you", ErrUnsafePath, path, owner)
		}
	}
	return nil
}
