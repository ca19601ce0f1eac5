package diagnose

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"

	"hermes-desktop/backend/model"
)

// openNoFollow: Lstat already refused a reparse point (addFile).
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// platformFacts: the Windows version, and Wine's when it runs under Wine
// (ntdll exports wine_get_version there).
func platformFacts() [][2]string {
	v := windows.RtlGetVersion()
	out := [][2]string{{"os", fmt.Sprintf("Windows %d.%d build %d", v.MajorVersion, v.MinorVersion, v.BuildNumber)}}
	proc := windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version")
	if proc.Find() == nil {
		if p, _, _ := proc.Call(); p != 0 {
			// A C string Wine owns for the process's life.
			out = append(out, [2]string{"wine", windows.BytePtrToString(*(**byte)(unsafe.Pointer(&p)))})
		}
	}
	return out
}

func processFacts(int) [][2]string { return nil }

// processEnvs: another process's environment is not read here; the
// patterns still apply.
func processEnvs(*model.Status) []string { return nil }
