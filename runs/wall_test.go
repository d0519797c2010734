package runs

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/maple-ood/maple/"

// storeMay are the functions of the packages above the store that runs
// may call: the defaults run.json's Config is filled from (config.go,
// which is to move beside the settings table).
var storeMay = map[string]bool{"core.DefaultSettings": true, "train.DefaultEval": true}

// TestStoreDoesNoWork: runs stores and reads runs; it trains nothing and
// builds no engine. It imports no baselines (not even through another
// package, but for config: run.json's Config lives there, and asks the
// methods' registry whether a method searches), calls no function of core or train (it uses their data types
// and constants: the records it keeps) and holds no core.Engine.
func TestStoreDoesNoWork(t *testing.T) {
	deps := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		if deps[p] || !strings.HasPrefix(p, module) || p == module+"config" {
			return
		}
		deps[p] = true
		pkg, err := build.Import(p, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range pkg.Imports {
			walk(q)
		}
	}
	walk(module + "runs")
	for _, banned := range []string{"baselines"} {
		if deps[module+banned] {
			t.Errorf("runs depends on %s (go list -deps ./runs): the work that needs it belongs above the store", banned)
		}
	}

	funcs := map[string]map[string]bool{} // package name -> its exported functions
	for _, name := range []string{"core", "train"} {
		funcs[name] = exportedFuncs(t, "../"+name)
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for file, f := range pkgs["runs"].Files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		names := map[string]string{} // local name -> package name
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			local := path.Base(p)
			if imp.Name != nil {
				local = imp.Name.Name
			}
			names[local] = path.Base(p)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			pkg := names[id.Name]
			use := pkg + "." + sel.Sel.Name
			switch {
			case funcs[pkg][sel.Sel.Name] && !storeMay[use]:
				t.Errorf("%s calls %s: the store does no work; move it above the store", fset.Position(sel.Pos()), use)
			case use == "core.Engine":
				t.Errorf("%s holds a core.Engine: the store does no work; move it above the store", fset.Position(sel.Pos()))
			}
			return true
		})
	}
}

// exportedFuncs lists the exported functions (not methods) of the package
// in dir.
func exportedFuncs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for name, p := range pkgs {
		if strings.HasSuffix(name, "_test") {
			continue
		}
		for fname, f := range p.Files {
			if strings.HasSuffix(fname, "_test.go") {
				continue
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && ast.IsExported(fd.Name.Name) {
					out[fd.Name.Name] = true
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no functions found in %s", dir)
	}
	return out
}
