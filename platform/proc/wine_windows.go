package proc

import "golang.org/x/sys/windows"

// UnderWine reports whether this Windows process runs under Wine rather
// than Windows: Wine's ntdll exports wine_get_version, Windows' does not.
// Tests use it to skip what Wine does not emulate (console control events,
// symlinks), saying so; the engine itself behaves the same either way.
func UnderWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
