package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The page calls the methods Wails binds: the exported methods of the root
// package's App. tsgen cannot import package main to reflect on them, so it
// reads them from the source with go/ast: the method declarations are then
// the one list, and a method added, renamed or retyped reaches the page at
// the next `make gen` (gen-check fails until then). A list kept here
// instead, checked against the source by a test, would be the list the
// page's hand copy was. What go/ast cannot see it refuses: an embedded
// field of App (Wails would bind its promoted methods too) and a type it
// cannot map to a model or a JSON primitive.

// boundType is the Go type Wails binds, in the root package.
const boundType = "App"

// method is one bound method as the page calls it.
type method struct {
	name    string
	doc     string
	params  []param
	result  string // the TypeScript the promise resolves to
	goFiles string // where it is declared, for the error messages
}

type param struct{ name, ts string }

// boundMethods parses the non-test Go files of dir (the root package) and
// returns App's exported methods, sorted by name. Files of every build tag
// are read: a method declared per OS must have one signature.
func (g *generator) boundMethods(dir string) ([]method, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, fmt.Errorf("tsgen: %w", err)
	}
	byName := map[string]method{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("tsgen: %w", err)
		}
		if f.Name.Name != "main" {
			continue
		}
		if err := refuseEmbedded(f); err != nil {
			return nil, err
		}
		ms, err := g.fileMethods(f, filepath.Base(path))
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if prev, ok := byName[m.name]; ok && !slices.Equal(prev.params, m.params) || ok && prev.result != m.result {
				return nil, fmt.Errorf("tsgen: %s.%s: declared in %s and %s with different signatures", boundType, m.name, prev.goFiles, m.goFiles)
			}
			byName[m.name] = m
		}
	}
	if len(byName) == 0 {
		return nil, fmt.Errorf("tsgen: no exported methods of %s in %s", boundType, dir)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range byName {
			if !yield(n) {
				return
			}
		}
	})
	out := make([]method, len(names))
	for i, n := range names {
		out[i] = byName[n]
	}
	return out, nil
}

// refuseEmbedded fails on an embedded field of App: Wails binds the methods
// it promotes, which this file does not read.
func refuseEmbedded(f *ast.File) error {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if ts.Name.Name != boundType || !ok {
				continue
			}
			for _, fld := range st.Fields.List {
				if len(fld.Names) == 0 {
					return fmt.Errorf("tsgen: %s embeds a field: Wails would bind its methods, which tsgen does not read", boundType)
				}
			}
		}
	}
	return nil
}

// fileMethods reads the exported methods of App declared in one file.
func (g *generator) fileMethods(f *ast.File, file string) ([]method, error) {
	imports := map[string]string{} // name in the file -> import path
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := filepath.Base(path)
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = path
	}
	var out []method
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || !fd.Name.IsExported() || receiverName(fd.Recv.List[0].Type) != boundType {
			continue
		}
		m, err := g.bound(fd, imports)
		if err != nil {
			return nil, fmt.Errorf("tsgen: %s: %s.%s: %w", file, boundType, fd.Name.Name, err)
		}
		m.goFiles = file
		out = append(out, m)
	}
	return out, nil
}

func receiverName(e ast.Expr) string {
	if st, ok := e.(*ast.StarExpr); ok {
		e = st.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// bound maps one method: its parameters, and what its promise resolves to.
// Wails rejects the promise with a non-nil error, so a (T, error) method
// resolves to T, an error-only one to nothing; as everywhere in Go, a
// pointer answered with a nil error is not nil.
func (g *generator) bound(fd *ast.FuncDecl, imports map[string]string) (method, error) {
	m := method{name: fd.Name.Name, doc: strings.TrimSpace(fd.Doc.Text()), result: "void"}
	for _, p := range fd.Type.Params.List {
		ts, err := g.astType(p.Type, imports, false)
		if err != nil {
			return method{}, err
		}
		for _, n := range p.Names {
			m.params = append(m.params, param{name: n.Name, ts: ts})
		}
		if len(p.Names) == 0 {
			return method{}, errors.New("unnamed parameter")
		}
	}
	var results []ast.Expr
	if fd.Type.Results != nil {
		for _, r := range fd.Type.Results.List {
			for range max(1, len(r.Names)) {
				results = append(results, r.Type)
			}
		}
	}
	if n := len(results); n > 0 && isIdent(results[n-1], "error") {
		results = results[:n-1]
	}
	switch len(results) {
	case 0:
	case 1:
		ts, err := g.astType(results[0], imports, true)
		if err != nil {
			return method{}, err
		}
		m.result = ts
	default:
		return method{}, errors.New("at most one result and an error: Wails binds no more")
	}
	return m, nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// primitives are the predeclared types a bound method may take or answer.
var primitives = map[string]reflect.Type{
	"string": reflect.TypeFor[string](), "bool": reflect.TypeFor[bool](),
	"int": reflect.TypeFor[int](), "int64": reflect.TypeFor[int64](), "uint64": reflect.TypeFor[uint64](),
	"float64": reflect.TypeFor[float64](), "uint32": reflect.TypeFor[uint32](), "int32": reflect.TypeFor[int32](),
}

// astType maps a parameter's or result's Go type to TypeScript, through
// the models table for a named type (a package-qualified struct or enum).
// A result slice may be nil, sent as null; a parameter is what the page
// sends.
func (g *generator) astType(e ast.Expr, imports map[string]string, result bool) (string, error) {
	switch t := e.(type) {
	case *ast.StarExpr:
		return g.astType(t.X, imports, result)
	case *ast.ArrayType:
		elem, err := g.astType(t.Elt, imports, false)
		if err != nil || t.Len != nil {
			return "", cmpErr(err, fmt.Errorf("arrays are not bound"))
		}
		if result {
			return elem + "[] | null", nil
		}
		return elem + "[]", nil
	case *ast.Ident:
		rt, ok := primitives[t.Name]
		if !ok {
			return "", fmt.Errorf("type %s: not a type the page can be given", t.Name)
		}
		ts, _, _, err := g.tsType(rt)
		return ts, err
	case *ast.SelectorExpr:
		pkg, ok := t.X.(*ast.Ident)
		if !ok {
			return "", fmt.Errorf("type %T: not read", t.X)
		}
		path := imports[pkg.Name]
		for typ, name := range g.structs {
			if typ.PkgPath() == path && typ.Name() == t.Sel.Name {
				return name, nil
			}
		}
		for typ, name := range g.unions {
			if typ.PkgPath() == path && typ.Name() == t.Sel.Name {
				return name, nil
			}
		}
		return "", fmt.Errorf("type %s.%s is not in the models table", path, t.Sel.Name)
	}
	return "", fmt.Errorf("type %T: not a type the page can be given", e)
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// methodsOf is the section of the bound methods of the package in dir.
func methodsOf(dir string) section {
	return func(g *generator, b *bytes.Buffer) error {
		ms, err := g.boundMethods(dir)
		if err == nil {
			writeMethods(b, ms)
		}
		return err
	}
}

// writeMethods writes the interface of the bound methods, with each Go doc
// comment.
func writeMethods(b *bytes.Buffer, methods []method) {
	fmt.Fprintf(b, "\n/**\n * The methods Wails binds for the Go %s (the root package's app*.go), as\n"+
		" * Go's JSON has them: read from their declarations by cmd/tsgen.\n */\n", boundType)
	fmt.Fprintf(b, "export interface Bound%s {\n", boundType)
	for _, m := range methods {
		if m.doc != "" {
			fmt.Fprintf(b, "  /** %s */\n", strings.ReplaceAll(strings.ReplaceAll(m.doc, "*/", "*\\/"), "\n", "\n   *  "))
		}
		ps := make([]string, len(m.params))
		for i, p := range m.params {
			ps[i] = p.name + ": " + p.ts
		}
		fmt.Fprintf(b, "  %s(%s): Promise<%s>;\n", m.name, strings.Join(ps, ", "), m.result)
	}
	b.WriteString("}\n")
}
