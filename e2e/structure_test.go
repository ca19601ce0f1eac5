package e2e

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The must-holds for the production source (issue 24), as numbers.
const (
	maxPackageLines = 2500 // non-test lines in one package (one folder)
	maxFuncLines    = 60   // one top-level function or method, func to brace
)

// generated is the line go generate's convention puts in generated files
// (go help generate).
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// violation is one breach of the structure rules, where a developer fixes it.
type violation struct {
	pos string // file:line, or a package's folder
	msg string
}

// TestStructure checks the must-holds of issue 24 over every production Go
// file of the module, whatever its build tags: no package over
// maxPackageLines lines, no function or method over maxFuncLines lines,
// and every exported name with a doc comment that starts with that name
// (golint's rule: top-level declarations and the methods of exported
// types; a parenthesised const or var group may share the group's
// comment). third_party, testdata, tests and generated files are exempt.
func TestStructure(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		// The Windows lane runs test binaries where the source may not be.
		t.Skipf("no module source to check: %v", err)
	}
	vs, err := checkStructure(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Errorf("%s: %s", v.pos, v.msg)
	}
}

// checkStructure parses the production files under root and returns every
// violation, sorted by position.
func checkStructure(root string) ([]violation, error) {
	fset := token.NewFileSet()
	var vs []violation
	pkgLines := map[string]int{}
	src := goSources{keep: production, mode: parser.ParseComments}
	err := src.walk(root, fset, func(rel string, f *ast.File) {
		pkgLines[path.Dir(rel)] += fset.File(f.Pos()).LineCount()
		vs = append(vs, checkFile(fset, rel, f)...)
	})
	if err != nil {
		return nil, err
	}
	for dir, n := range pkgLines {
		if n > maxPackageLines {
			vs = append(vs, violation{pos: dir + "/",
				msg: fmt.Sprintf("package has %d non-test lines, over %d", n, maxPackageLines)})
		}
	}
	sort.SliceStable(vs, func(i, j int) bool { return lessPos(vs[i].pos, vs[j].pos) })
	return vs, nil
}

// skipDir says whether a folder holds no production code of ours: vendored
// code, test data, the page's sources and dependencies, hidden folders.
func skipDir(rel, name string) bool {
	if rel == "." {
		return false
	}
	switch {
	case rel == "third_party", rel == "frontend", name == "testdata", name == "node_modules":
		return true
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"):
		return true
	}
	return false
}

// checkFile returns the long functions and the missing or misworded doc
// comments of one file.
func checkFile(fset *token.FileSet, rel string, f *ast.File) []violation {
	var vs []violation
	add := func(n ast.Node, format string, args ...any) {
		p := fset.Position(n.Pos())
		vs = append(vs, violation{pos: fmt.Sprintf("%s:%d", rel, p.Line), msg: fmt.Sprintf(format, args...)})
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Body != nil {
				n := fset.Position(d.End()).Line - fset.Position(d.Pos()).Line + 1
				if n > maxFuncLines {
					add(d, "%s is %d lines, over %d: split it into named steps", funcName(d), n, maxFuncLines)
				}
			}
			if msg := funcDocProblem(d); msg != "" {
				add(d, "%s", msg)
			}
		case *ast.GenDecl:
			for _, v := range genDeclDocProblems(d) {
				add(v.node, "%s", v.msg)
			}
		}
	}
	return vs
}

// funcName names a function as a reader finds it: Recv.Name or Name.
func funcName(d *ast.FuncDecl) string {
	if r := recvType(d); r != "" {
		return r + "." + d.Name.Name
	}
	return d.Name.Name
}

// recvType is the name of a method's receiver type, "" for a function.
func recvType(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	x := d.Recv.List[0].Type
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.ParenExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.Ident:
			return e.Name
		default:
			return "?"
		}
	}
}

// funcDocProblem checks an exported function's doc comment, or an exported
// method's on an exported type.
func funcDocProblem(d *ast.FuncDecl) string {
	if !d.Name.IsExported() {
		return ""
	}
	kind := "function"
	if r := recvType(d); r != "" {
		if !ast.IsExported(r) {
			return ""
		}
		kind = "method"
	}
	return docProblem(kind, funcName(d), d.Name.Name, d.Doc, false)
}

type nodeMsg struct {
	node ast.Node
	msg  string
}

// genDeclDocProblems checks the exported types, consts and vars of one
// declaration. As golint does, a parenthesised group's own comment covers
// its consts and vars, and a type may begin with an article.
func genDeclDocProblems(d *ast.GenDecl) []nodeMsg {
	var out []nodeMsg
	grouped := d.Lparen.IsValid()
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			doc := s.Doc
			if doc == nil && !grouped {
				doc = d.Doc
			}
			if msg := docProblem("type", s.Name.Name, s.Name.Name, doc, true); msg != "" {
				out = append(out, nodeMsg{s, msg})
			}
		case *ast.ValueSpec:
			kind := strings.ToLower(d.Tok.String())
			for _, n := range s.Names[1:] {
				if n.IsExported() {
					out = append(out, nodeMsg{n, fmt.Sprintf("exported %s %s should have its own declaration", kind, n.Name)})
				}
			}
			name := s.Names[0]
			if !name.IsExported() || (grouped && d.Doc != nil) {
				continue
			}
			doc := s.Doc
			if doc == nil && !grouped {
				doc = d.Doc
			}
			if msg := docProblem(kind, name.Name, name.Name, doc, false); msg != "" {
				out = append(out, nodeMsg{name, msg})
			}
		}
	}
	return out
}

// docProblem says what is wrong with doc as the comment of name, "" if
// nothing: it must exist and start with the name and a space.
func docProblem(kind, shown, name string, doc *ast.CommentGroup, article bool) string {
	if doc == nil {
		return fmt.Sprintf("exported %s %s has no doc comment", kind, shown)
	}
	text := doc.Text()
	if article {
		for _, a := range []string{"A ", "An ", "The "} {
			if rest, ok := strings.CutPrefix(text, a); ok {
				text = rest
				break
			}
		}
	}
	if !strings.HasPrefix(text, name+" ") && !strings.HasPrefix(text, name+"\n") {
		first, _, _ := strings.Cut(text, "\n")
		return fmt.Sprintf("doc comment of exported %s %s should start with %q, not %q", kind, shown, name, first)
	}
	return ""
}
