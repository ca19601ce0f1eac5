//go:build !linux && !darwin && !windows

package proc

// This package reads process identities, tables and trees and signals
// through handles with per-OS code for Linux, macOS and Windows only. On
// any other system the build stops here, with this name in the first
// error, instead of at a list of undefined per-OS hooks.
type unsupportedOS hermes_desktop_supports_only_linux_macos_and_windows
