package prose

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pending names the pages that may still be too dense, each with why.
// A page leaves the list when it passes; the test fails on an entry for
// a page that passes or no longer exists, so the list cannot go stale.
var pending = map[string]string{}

// TestPages holds maple's README.md and docs/*.md to DefaultLimits: a
// page too dense fails, named with its figures and its longest
// sentence's start. Run with -v to see every page's figures.
func TestPages(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	var seen []string
	for _, p := range pages {
		name := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		seen = append(seen, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := Measure(string(b))
		why := DefaultLimits.Dense(s)
		reason, isPending := pending[name]
		switch {
		case len(why) > 0 && isPending:
			t.Logf("%s: %s (pending: %s; too dense: %s)", name, s, reason, strings.Join(why, "; "))
		case len(why) > 0:
			t.Errorf("%s is too dense: %s; %s. Split its long sentences, or move what does not fit a short one into a table or a list",
				name, strings.Join(why, "; "), s)
		case isPending:
			t.Errorf("%s passes (%s) but is listed as pending (%s): remove its entry from pending in internal/prose/pages_test.go", name, s, reason)
		default:
			t.Logf("%s: %s", name, s)
		}
	}
	for name := range pending {
		if !slices.Contains(seen, name) {
			t.Errorf("pending names %s, which is not a page: remove its entry from pending in internal/prose/pages_test.go", name)
		}
	}
}
