package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The source checks (structure, sizes, plain exec, hand loops) read the
// module's Go files the same way: this file is that one way.

// sourceRoot is the module's root, or a skip where the source is not there
// (the Windows lane runs test binaries without it).
func sourceRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skipf("no module source to check: %v", err)
	}
	return root
}

// plant writes src to rel under root, for a check run on a planted tree.
func plant(t *testing.T, root, rel, src string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goSources says which Go files a check reads: by their slash-separated
// path relative to the root.
type goSources struct {
	keep          func(rel string) bool // the files to read
	skip          func(rel string) bool // folders passed over beside skipDir's; nil for none
	mode          parser.Mode           // beside SkipObjectResolution
	withGenerated bool                  // read generated files too
}

// walk calls fn with each file under root that g reads, parsed into fset.
func (g goSources) walk(root string, fset *token.FileSet, fn func(rel string, f *ast.File)) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipDir(rel, d.Name()) || (g.skip != nil && g.skip(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || !g.keep(rel) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !g.withGenerated && generated.Match(src) {
			return nil
		}
		f, err := parser.ParseFile(fset, rel, src, g.mode|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(rel, f)
		return nil
	})
}

// production keeps the files that are not tests.
func production(rel string) bool { return !strings.HasSuffix(rel, "_test.go") }
