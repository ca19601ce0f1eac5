package main

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
	"slices"

	"hermes-desktop/backend/update"
)

// Which Linux desktop build an artifact is (update's flavours), read from
// the WebKitGTK library it links: pack and sign refuse a binary under
// another flavour's platform key (checkFlavour).

// flavourLibraries are the sonames that tell the flavours apart in a
// binary's dynamic section.
var flavourLibraries = map[string]string{
	update.FlavourWebKit41: "libwebkit2gtk-4.1.so.0",
	update.FlavourWebKit40: "libwebkit2gtk-4.0.so.37",
}

// artifactFlavour reads the flavour an ELF binary was built for from the
// WebKitGTK library it links: "" for a binary that links none (a headless
// build, or not an ELF file at all: Windows and macOS artifacts).
func artifactFlavour(path string) (string, error) {
	if isELF, err := hasELFMagic(path); err != nil || !isELF {
		return "", err // not ELF: no WebKitGTK flavour to check
	}
	f, err := elf.Open(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		return "", fmt.Errorf("the libraries %s links: %w", path, err)
	}
	var found []string
	for flavour, soname := range flavourLibraries {
		if slices.Contains(libs, soname) {
			found = append(found, flavour)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s links both WebKitGTK 4.0 and 4.1", path)
}

// hasELFMagic reports whether path starts as an ELF file does.
func hasELFMagic(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("%w", err)
	}
	defer f.Close()
	magic := make([]byte, len(elf.ELFMAG))
	if _, err := io.ReadFull(f, magic); err != nil {
		return false, nil // shorter than the magic: not ELF
	}
	return string(magic) == elf.ELFMAG, nil
}
