package testbin

import "strings"

// WineLoader runs a Windows build under Wine (the tests' and benches'
// prefix is 64-bit; wine's launcher script nags about wine32).
const WineLoader = "/usr/lib/wine/wine64"

// WinPath is the Windows name of a Linux path in a Wine prefix (drive Z:
// is /).
func WinPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }
