package baselines

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
)

// branchOnMaple finds a line that branches on the maple method's name
// instead of asking for the capability (Searcher): a comparison with
// core.MethodMaple or the literal "maple", or a prefix test on it.
var branchOnMaple = regexp.MustCompile(`MethodMaple|[=!]= "maple"|"maple" [=!]=|HasPrefix\([^)]*"maple"\)|case "maple"`)

// maxBranchesOnMaple is how many lines may still name the search:
// core's constant, the maple method's Name, and the defaults that are
// maple (config's DefaultConfig and the method setting's default, a
// baseline's search settings derived as maple's).
const maxBranchesOnMaple = 8

// TestFewBranchesOnMaple: maple is a Method like the others; code asks
// for a Searcher (SearcherOf, config.Config.Searches) instead of
// comparing the method's name (63 lines in 11 packages did).
func TestFewBranchesOnMaple(t *testing.T) {
	var hits []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != ".." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if strings.HasPrefix(line, "//") || strings.HasPrefix(line, "const MethodMaple") {
				continue
			}
			if branchOnMaple.MatchString(line) {
				hits = append(hits, path+": "+line)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) > maxBranchesOnMaple {
		t.Errorf("%d lines name the maple method, want at most %d: ask for a Searcher (SearcherOf) instead:\n%s",
			len(hits), maxBranchesOnMaple, strings.Join(hits, "\n"))
	}
	if len(hits) == 0 {
		t.Error("no line names the maple method: the scan found no Go files")
	}
	t.Logf("%d lines name the maple method:\n%s", len(hits), strings.Join(hits, "\n"))
}

// TestMapleIsASearcher: the maple method is registered, first, and is a
// Searcher, not a Trainer; the comparison methods are Trainers.
func TestMapleIsASearcher(t *testing.T) {
	if got := Methods()[0]; got != core.MethodMaple {
		t.Errorf("Methods()[0] = %q, want %q", got, core.MethodMaple)
	}
	for _, tc := range []struct {
		method          string
		search, trainer bool
	}{
		{core.MethodMaple, true, false},
		{"erm", false, true},
		{"dfr", false, true},
		{"no-such", false, false},
	} {
		t.Run(tc.method, func(t *testing.T) {
			_, search := SearcherOf(tc.method)
			m, _ := Lookup(tc.method)
			_, trainer := m.(Trainer)
			if search != tc.search || trainer != tc.trainer {
				t.Errorf("%s: searches %v, trains %v; want %v, %v", tc.method, search, trainer, tc.search, tc.trainer)
			}
		})
	}
}
