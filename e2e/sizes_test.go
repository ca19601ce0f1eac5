package e2e

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"sort"
	"strings"
	"testing"
)

// The size limits of issue 32 (STYLE 22): a limit holds for every type and
// every file, so that splitting one god object into a bigger neighbour
// fails here instead of in a review.
const (
	maxTypeFields  = 20  // a struct's fields; an embedded field counts once
	maxTypeMethods = 30  // a type's methods; one written per OS counts once
	maxFileLines   = 500 // one production file
)

// typeSize is what the size rules count of one named type of a package.
type typeSize struct {
	pos     string          // where the struct is declared, file:line
	fields  int             // the largest of its per-OS declarations
	methods map[string]bool // by name, so a per-OS method counts once
}

// TestSizes checks the size limits over every production Go file of the
// module, whatever its build tags (tests, testdata, third_party and
// generated files aside).
func TestSizes(t *testing.T) {
	vs, err := checkSizes(sourceRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Errorf("%s: %s", v.pos, v.msg)
	}
}

// TestSizesCatchPlanted plants a file and a type over each limit in a
// scratch module and checks that each is reported, and that a method
// written once per OS is counted once.
func TestSizesCatchPlanted(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) { plant(t, root, rel, src) }
	var fields, methods strings.Builder
	for i := range maxTypeFields + 1 {
		fmt.Fprintf(&fields, "\tf%d int\n", i)
	}
	for i := range maxTypeMethods {
		fmt.Fprintf(&methods, "func (b *Big) M%d() {}\n", i)
	}
	write("go.mod", "module planted\n")
	write("big/big.go", "package big\n\ntype Big struct {\n"+fields.String()+"}\n\n"+methods.String())
	// One more method, once per OS: 31 by name only if counted once.
	write("big/os_linux.go", "package big\n\nfunc (b *Big) PerOS() {}\n")
	write("big/os_windows.go", "package big\n\nfunc (b *Big) PerOS() {}\n")
	write("big/long.go", "package big\n"+strings.Repeat("\n", maxFileLines))
	write("big/long_test.go", "package big\n"+strings.Repeat("\n", maxFileLines))
	vs, err := checkSizes(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.pos+": "+v.msg)
	}
	want := []string{
		"big/big.go:3: type Big has 21 fields, over 20",
		"big/big.go:3: type Big has 31 methods, over 30",
		"big/long.go: 501 lines, over 500",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkSizes returns every file and type of the module under root that is
// over a size limit, sorted by position.
func checkSizes(root string) ([]violation, error) {
	fset := token.NewFileSet()
	var vs []violation
	types := map[string]*typeSize{} // by package folder and type name
	sizeOf := func(key string) *typeSize {
		if types[key] == nil {
			types[key] = &typeSize{methods: map[string]bool{}}
		}
		return types[key]
	}
	err := goSources{keep: production}.walk(root, fset, func(rel string, f *ast.File) {
		if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
			vs = append(vs, violation{pos: rel, msg: fmt.Sprintf("%d lines, over %d", n, maxFileLines)})
		}
		countTypes(fset, path.Dir(rel), f, sizeOf)
	})
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(types))
	for k := range types {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ts := types[k]
		name := k[strings.LastIndex(k, ".")+1:]
		if ts.fields > maxTypeFields {
			vs = append(vs, violation{pos: ts.pos, msg: fmt.Sprintf("type %s has %d fields, over %d", name, ts.fields, maxTypeFields)})
		}
		if n := len(ts.methods); n > maxTypeMethods {
			vs = append(vs, violation{pos: ts.pos, msg: fmt.Sprintf("type %s has %d methods, over %d", name, n, maxTypeMethods)})
		}
	}
	sort.SliceStable(vs, func(i, j int) bool { return lessPos(vs[i].pos, vs[j].pos) })
	return vs, nil
}

// countTypes adds one file's struct declarations and methods to the sizes
// of its package's types (keyed "folder.Type").
func countTypes(fset *token.FileSet, dir string, f *ast.File, sizeOf func(string) *typeSize) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				s, ok := spec.(*ast.TypeSpec)
				if !ok {
					continue
				}
				st, ok := s.Type.(*ast.StructType)
				if !ok {
					continue
				}
				n := 0
				for _, fl := range st.Fields.List {
					n += max(len(fl.Names), 1) // an embedded field has no names
				}
				ts := sizeOf(dir + "." + s.Name.Name)
				if n >= ts.fields {
					ts.fields = n
					ts.pos = fmt.Sprintf("%s:%d", fset.Position(s.Pos()).Filename, fset.Position(s.Pos()).Line)
				}
			}
		case *ast.FuncDecl:
			if r := recvType(d); r != "" && r != "?" {
				ts := sizeOf(dir + "." + r)
				ts.methods[d.Name.Name] = true
				if ts.pos == "" {
					ts.pos = fmt.Sprintf("%s:%d", fset.Position(d.Pos()).Filename, fset.Position(d.Pos()).Line)
				}
			}
		}
	}
}
