package e2e

import (
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// execRegistry is the one package that may start a child with os/exec's
// own methods: it registers every child it starts (proc.StartChild,
// RunChild, OutputChild, CombinedOutputChild), so the orphan collector and
// the reclaimer never take a child of ours for somebody else's.
const execRegistry = "platform/proc"

// plainExecExempt are the folders whose children need not be registered,
// each with its reason. A folder covers its subfolders.
var plainExecExempt = map[string]string{
	"cmd":             "developer tools, not shipped in the app",
	"bench":           "benchmarks, not shipped in the app",
	"internal":        "test helpers, linked only into tests",
	"backend/builtin": "the built-in backend runs as a backend, not as the launcher: its children are its own to wait for, as Hermes' are",
}

// execMethods are the methods of *exec.Cmd that start a child.
var execMethods = map[string]bool{"Start": true, "Run": true, "Output": true, "CombinedOutput": true}

// TestStructurePlainExec: no production code outside execRegistry starts a
// child with a plain exec.Cmd method, which would leave the child outside
// the registry of the children we wait for.
func TestStructurePlainExec(t *testing.T) {
	vs, err := checkPlainExec(sourceRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Errorf("%s: %s", v.pos, v.msg)
	}
}

// TestStructurePlainExecCatchesAPlantedCall plants plain starts in a module
// of its own and checks that the rule finds each, and spares the registry,
// an exempt folder, tests and a method of the same name on another type.
func TestStructurePlainExecCatchesAPlantedCall(t *testing.T) {
	root := t.TempDir()
	plant := func(rel, src string) { plant(t, root, rel, src) }
	const bad = "package bad\n\nimport \"os/exec\"\n\n// F starts children unregistered.\nfunc F() {\n" +
		"\t_ = exec.Command(\"true\").Run()\n" +
		"\tcmd := exec.Command(\"true\")\n" +
		"\t_, _ = cmd.Output()\n" +
		"\tvar c *exec.Cmd = exec.Command(\"true\")\n" +
		"\t_ = c.Start()\n" +
		"\tlit := &exec.Cmd{Path: \"/bin/true\"}\n" +
		"\t_ = lit.Run()\n" +
		"}\n"
	plant("backend/bad/bad.go", bad)
	plant("backend/bad/bad_test.go", bad)
	plant("platform/proc/ok.go", strings.Replace(bad, "package bad", "package proc", 1))
	plant("cmd/tool/ok.go", strings.Replace(bad, "package bad", "package main", 1))
	plant("backend/fine/fine.go", "package fine\n\nimport \"os/exec\"\n\ntype runner struct{}\n\nfunc (runner) Run() error { return nil }\n\n"+
		"// F runs no child.\nfunc F() { _ = runner{}.Run(); _ = exec.ErrNotFound }\n")
	vs, err := checkPlainExec(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.pos)
	}
	want := []string{"backend/bad/bad.go:7", "backend/bad/bad.go:9", "backend/bad/bad.go:11", "backend/bad/bad.go:13"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("violations at %v, want %v", got, want)
	}
}

// checkPlainExec returns every call of an exec.Cmd start method in the
// production files under root outside execRegistry and the exempt folders.
func checkPlainExec(root string) ([]violation, error) {
	fset := token.NewFileSet()
	var vs []violation
	src := goSources{keep: production, skip: func(rel string) bool { return rel == execRegistry || plainExecExempt[rel] != "" }}
	err := src.walk(root, fset, func(rel string, f *ast.File) {
		for _, pos := range plainExecCalls(fset, f) {
			vs = append(vs, violation{pos: fmt.Sprintf("%s:%d", rel, pos),
				msg: "a child started with a plain exec.Cmd method: start it through proc.StartChild (or RunChild, OutputChild, CombinedOutputChild)"})
		}
	})
	sort.Slice(vs, func(i, j int) bool { return lessPos(vs[i].pos, vs[j].pos) })
	return vs, err
}

// lessPos orders "file:line" by file, then by line as a number.
func lessPos(a, b string) bool {
	fa, la, _ := strings.Cut(a, ":")
	fb, lb, _ := strings.Cut(b, ":")
	if fa != fb {
		return fa < fb
	}
	na, _ := strconv.Atoi(la)
	nb, _ := strconv.Atoi(lb)
	return na < nb
}

// plainExecCalls returns the lines of f that call a start method on an
// exec.Cmd: on exec.Command(...) or exec.CommandContext(...) itself, or on
// a name or field that f gives such a value or declares as one. Without
// type checking this follows names within the file; a file that does not
// import os/exec can hold none.
func plainExecCalls(fset *token.FileSet, f *ast.File) []int {
	execName := importName(f, "os/exec")
	if execName == "" {
		return nil
	}
	cmds := cmdNames(f, execName)
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !execMethods[sel.Sel.Name] {
			return true
		}
		if isCommandCall(sel.X, execName) || cmds[exprName(sel.X)] {
			lines = append(lines, fset.Position(call.Pos()).Line)
		}
		return true
	})
	return lines
}

// cmdNames is every name (a variable, or the last part of a field
// selector) that f assigns an exec.Command call or declares as *exec.Cmd.
func cmdNames(f *ast.File, execName string) map[string]bool {
	names := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for i, rhs := range x.Rhs {
				if i < len(x.Lhs) && isCommandCall(rhs, execName) {
					names[exprName(x.Lhs[i])] = true
				}
			}
		case *ast.ValueSpec:
			for i, name := range x.Names {
				if isCmdType(x.Type, execName) || (i < len(x.Values) && isCommandCall(x.Values[i], execName)) {
					names[name.Name] = true
				}
			}
		case *ast.Field:
			if isCmdType(x.Type, execName) {
				for _, name := range x.Names {
					names[name.Name] = true
				}
			}
		}
		return true
	})
	delete(names, "")
	return names
}

// isCommandCall reports whether e makes an exec.Cmd: exec.Command(...),
// exec.CommandContext(...), or a literal exec.Cmd{...} (or its address).
func isCommandCall(e ast.Expr, execName string) bool {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	if lit, ok := e.(*ast.CompositeLit); ok {
		return isCmdType(lit.Type, execName)
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || (sel.Sel.Name != "Command" && sel.Sel.Name != "CommandContext") {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == execName
}

// isCmdType reports whether t is *exec.Cmd or exec.Cmd.
func isCmdType(t ast.Expr, execName string) bool {
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	sel, ok := t.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Cmd" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == execName
}

// exprName is a variable's name, or a field selector's last part ("cmd"
// for i.cmd); "" for anything else.
func exprName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

// importName is the name f uses for the package at path, "" when f does
// not import it (or imports it blank or into its own scope).
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p != path {
			continue
		}
		if imp.Name == nil {
			return filepath.Base(path)
		}
		if imp.Name.Name == "_" || imp.Name.Name == "." {
			return ""
		}
		return imp.Name.Name
	}
	return ""
}
