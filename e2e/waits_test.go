package e2e

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strings"
	"testing"
)

// waitHelper is the one package that may poll against the clock: every
// other wait in a test goes through it (issue 32), so a timeout always
// names what it waited for and the back-off is written once.
const waitHelper = "internal/waitfor"

// handLoopAllowed are the loops that compare the clock and are not waits,
// keyed "file function", each with its reason.
var handLoopAllowed = map[string]string{
	"e2e/leakguard_linux_test.go TestLeakGuardKeepsDuplicatesBounded": "samples the policy for a fixed 4 s; it waits for nothing",
	"internal/testbin/pidfd_linux.go WaitPidfds":                      "blocks in poll(2) on pidfds to time each exit; a poll with back-off would blur the times the benchmarks measure",
}

// TestWaitsGoThroughWaitfor: no test, and no test helper under internal/,
// hand-writes a deadline loop; it waits with waitfor.Until or waitfor.Try.
func TestWaitsGoThroughWaitfor(t *testing.T) {
	used := map[string]bool{}
	vs, err := checkHandLoops(sourceRoot(t), handLoopAllowed, used)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Errorf("%s: %s", v.pos, v.msg)
	}
	for key := range handLoopAllowed {
		if !used[key] {
			t.Errorf("handLoopAllowed: %q holds no clock loop any more: drop it", key)
		}
	}
}

// TestWaitsCatchAPlantedLoop plants deadline loops of each shape in a
// module of its own and checks that each is found, and that waitfor
// itself, production code, an allowed loop, a clock read outside any loop
// and one inside a closure are spared.
func TestWaitsCatchAPlantedLoop(t *testing.T) {
	root := t.TempDir()
	plant := func(rel, src string) { plant(t, root, rel, src) }
	const bad = "package bad\n\nimport (\n\t\"testing\"\n\tclock \"time\"\n)\n\n" +
		"func TestBad(t *testing.T) {\n" +
		"\tdeadline := clock.Now().Add(clock.Second)\n" + // 9: outside a loop
		"\tfor clock.Now().Before(deadline) {\n" + // 10
		"\t}\n" +
		"\tfor {\n" +
		"\t\tif clock.Now().After(deadline) {\n" + // 13
		"\t\t\tbreak\n\t\t}\n\t}\n" +
		"\tfor clock.Until(deadline) > 0 {\n" + // 17
		"\t}\n" +
		"\tfor !deadline.Before(clock.Now()) {\n" + // 19
		"\t\tgo func() { _ = clock.Now().After(deadline) }()\n" + // 20: a closure of its own
		"\t}\n" +
		"\tfor start := clock.Now(); clock.Since(start) < clock.Second; {\n" + // 22
		"\t}\n" +
		"\tfor range clock.Tick(clock.Millisecond) {\n" +
		"\t\tif clock.Until(deadline) <= 0 {\n" + // 25
		"\t\t\tbreak\n\t\t}\n\t}\n" +
		"}\n"
	plant("backend/bad/bad_test.go", bad)
	plant("internal/helper/helper.go", strings.Replace(bad, "package bad", "package helper", 1))
	plant("internal/waitfor/waitfor.go", strings.Replace(bad, "package bad", "package waitfor", 1))
	plant("backend/prod/prod.go", strings.Replace(bad, "package bad", "package prod", 1))
	plant("backend/allowed/allowed_test.go", strings.Replace(bad, "package bad", "package allowed", 1))
	vs, err := checkHandLoops(root, map[string]string{"backend/allowed/allowed_test.go TestBad": "planted"}, map[string]bool{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.pos)
	}
	var want []string
	for _, f := range []string{"backend/bad/bad_test.go", "internal/helper/helper.go"} {
		for _, line := range []int{10, 13, 17, 19, 22, 25} {
			want = append(want, fmt.Sprintf("%s:%d", f, line))
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("violations at %v, want %v", got, want)
	}
}

// checkHandLoops returns every clock comparison inside a for loop in the
// test files under root and the Go files under internal/, outside
// waitHelper and the allowed functions; it marks in used each allowed
// function that holds one.
func checkHandLoops(root string, allowed map[string]string, used map[string]bool) ([]violation, error) {
	fset := token.NewFileSet()
	var vs []violation
	src := goSources{
		keep:          func(rel string) bool { return !production(rel) || strings.HasPrefix(rel, "internal/") },
		skip:          func(rel string) bool { return rel == waitHelper },
		withGenerated: true,
	}
	err := src.walk(root, fset, func(rel string, f *ast.File) {
		for _, c := range clockLoops(fset, f) {
			if key := rel + " " + c.fn; allowed[key] != "" {
				used[key] = true
			} else {
				vs = append(vs, violation{pos: fmt.Sprintf("%s:%d", rel, c.line),
					msg: "a hand-written deadline loop in " + c.fn + ": wait with waitfor.Until or waitfor.Try"})
			}
		}
	})
	sort.Slice(vs, func(i, j int) bool { return lessPos(vs[i].pos, vs[j].pos) })
	return vs, err
}

// clockLoop is one clock comparison inside a for loop: its line and the
// top-level function that holds it.
type clockLoop struct {
	line int
	fn   string
}

// clockLoops returns the clock comparisons in f that sit in a for loop of
// the same function (a closure is a function of its own: a comparison in
// it is not the loop's).
func clockLoops(fset *token.FileSet, f *ast.File) []clockLoop {
	timeName := importName(f, "time")
	if timeName == "" {
		return nil
	}
	var out []clockLoop
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		var walk func(n ast.Node, inFor bool)
		walk = func(n ast.Node, inFor bool) {
			ast.Inspect(n, func(c ast.Node) bool {
				switch x := c.(type) {
				case *ast.FuncLit:
					walk(x.Body, false)
					return false
				case *ast.ForStmt, *ast.RangeStmt:
					if c != n {
						walk(x, true)
						return false
					}
				case ast.Expr:
					if inFor && isClockComparison(x, timeName) {
						out = append(out, clockLoop{line: fset.Position(x.Pos()).Line, fn: fd.Name.Name})
						return false
					}
				}
				return true
			})
		}
		walk(fd.Body, false)
	}
	return out
}

// isClockComparison reports whether e compares the clock with a time:
// time.Now().Before(x) or .After(x), x.Before(time.Now()) or
// .After(time.Now()), or time.Until(x) or time.Since(x) on a side of <, <=,
// > or >=.
func isClockComparison(e ast.Expr, timeName string) bool {
	switch x := e.(type) {
	case *ast.CallExpr:
		sel, ok := x.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Before" && sel.Sel.Name != "After") || len(x.Args) != 1 {
			return false
		}
		return isTimeCall(sel.X, timeName, "Now") || isTimeCall(x.Args[0], timeName, "Now")
	case *ast.BinaryExpr:
		switch x.Op {
		case token.LSS, token.LEQ, token.GTR, token.GEQ:
			for _, side := range []ast.Expr{x.X, x.Y} {
				if isTimeCall(side, timeName, "Until") || isTimeCall(side, timeName, "Since") {
					return true
				}
			}
		}
	}
	return false
}

// isTimeCall reports whether e calls the time package's function fn.
func isTimeCall(e ast.Expr, timeName, fn string) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != fn {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == timeName
}
