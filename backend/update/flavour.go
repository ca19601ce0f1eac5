package update

import (
	"fmt"
	"runtime"
	"strings"
)

// The Linux desktop build comes in two flavours, one per WebKitGTK ABI
// Wails v2 can link: 4.1 (its webkit2_41 build tag), which Debian 13,
// Ubuntu 24.04+, Fedora and Arch ship, and 4.0, which only Debian 12 and
// Ubuntu 22.04 still do. A binary of one flavour does not start where only
// the other's libraries are installed, so the feed carries an artifact per
// flavour and an install takes only its own (Platform).
const (
	FlavourWebKit41 = "webkit41"
	FlavourWebKit40 = "webkit40"
)

// Flavour is this build's: FlavourWebKit41 for a Linux build with the
// webkit2_41 tag, FlavourWebKit40 for the Linux desktop build without it,
// "" for every other build (headless, Windows, macOS: no WebKitGTK).
const Flavour = buildFlavour

// FlavourName says a flavour in words ("WebKitGTK 4.1"); "" for none.
func FlavourName(flavour string) string {
	switch flavour {
	case FlavourWebKit41:
		return "WebKitGTK 4.1"
	case FlavourWebKit40:
		return "WebKitGTK 4.0"
	}
	return ""
}

// Platform is this build's key in Manifest.Platforms: "linux-amd64-webkit41"
// for a flavoured Linux build, "windows-amd64" for one without a flavour.
func Platform() string { return PlatformOf(runtime.GOOS, runtime.GOARCH, Flavour) }

// PlatformOf is the manifest key of a build for goos/goarch of flavour.
func PlatformOf(goos, goarch, flavour string) string {
	if flavour == "" {
		return goos + "-" + goarch
	}
	return goos + "-" + goarch + "-" + flavour
}

// PlatformFlavour is the flavour a manifest key names ("" for a key of
// two parts).
func PlatformFlavour(platform string) string {
	parts := strings.Split(platform, "-")
	if len(parts) < 3 {
		return ""
	}
	return parts[2]
}

// flavourWords says which build a flavour is, for a message.
func flavourWords(flavour string) string {
	if name := FlavourName(flavour); name != "" {
		return "the " + name + " build"
	}
	if flavour == "" {
		return "a build without WebKitGTK"
	}
	return "of flavour " + flavour
}

// describePlatform says a manifest key for a person: the key, and its
// flavour in words when it has one.
func describePlatform(platform string) string {
	if name := FlavourName(PlatformFlavour(platform)); name != "" {
		return fmt.Sprintf("%s (the %s build)", platform, name)
	}
	return platform
}
