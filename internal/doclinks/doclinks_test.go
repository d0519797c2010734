package doclinks

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
)

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ name, heading, want string }{
		{"plain", "Headline results", "headline-results"},
		{"punctuation dropped", "Model width (the paper's Figure 2, ColoredMNIST)", "model-width-the-papers-figure-2-coloredmnist"},
		{"slash and dots dropped", "Ablation (ColoredMNIST, maple/irmv1) v0.9", "ablation-coloredmnist-mapleirmv1-v09"},
		{"hyphen and underscore kept", "keep_pct and set-up", "keep_pct-and-set-up"},
		{"code and emphasis marks dropped", "Run `maple reproduce` **now**", "run-maple-reproduce-now"},
		{"link text kept", "See [the paper](PAPER.md) now", "see-the-paper-now"},
		{"non-ASCII letters kept, dash dropped", "Größe — width", "größe--width"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Slug(tc.heading); got != tc.want {
				t.Errorf("Slug(%q) = %q, want %q", tc.heading, got, tc.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md": {Data: []byte("# Top\n\n## Results\n\n## Results\n\n" +
			"[ok](docs/A.md) [ok anchor](docs/A.md#a-section) [own](#results-1) [image](docs/fig.png)\n" +
			"[web](https://example.com/x#y) [mail](mailto:a@b.c)\n" +
			"[gone](docs/B.md)\n" +
			"[bad anchor](docs/A.md#nowhere)\n" +
			"`[in code](nowhere.md)`\n" +
			"```\n[in a fence](nowhere.md)\n```\n" +
			"[own missing](#results-2)\n")},
		"docs/A.md":        {Data: []byte("# A\n\n## A section\n\n<a id=\"explicit\"></a>\n[up](../README.md#top) [explicit](#explicit) [escaped](../docs/fig%20one.png)\n[out](../../x.md) [abs](/docs/A.md)\n[line](../code.go#L10)\n")},
		"docs/fig.png":     {Data: []byte{}},
		"docs/fig one.png": {Data: []byte{}},
		"code.go":          {Data: []byte("package x\n")},
		"testdata/bad.md":  {Data: []byte("[gone](nowhere.md)\n")},
		".hidden/bad.md":   {Data: []byte("[gone](nowhere.md)\n")},
	}
	got, err := Check(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, b := range got {
		lines = append(lines, b.String())
	}
	want := []string{
		"README.md:9: docs/B.md: no such file",
		"README.md:10: docs/A.md#nowhere: docs/A.md has no heading or anchor #nowhere",
		"README.md:15: #results-2: README.md has no heading or anchor #results-2",
		"docs/A.md:7: ../../x.md: outside the tree",
		"docs/A.md:7: /docs/A.md: an absolute path: a link between pages is relative to the page",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("Check found\n%q\nwant\n%q", lines, want)
	}
}

// TestMaplePages checks every link of maple's own pages: the README,
// docs/ and the archive.
func TestMaplePages(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	broken, err := Check(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
}
