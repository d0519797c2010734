package figure

import (
	"bytes"
	"errors"
	"go/parser"
	"go/token"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestWriteFileAtomic: a file is whole or absent. A write that fails
// half-way leaves no partial file, keeps an older one as it was, and
// leaves no temporary file behind.
func TestWriteFileAtomic(t *testing.T) {
	failing := func(w io.Writer) error {
		w.Write([]byte("half a fig"))
		return errors.New("disk full")
	}
	whole := func(w io.Writer) error { _, err := w.Write([]byte("the whole figure")); return err }
	for _, tc := range []struct {
		name  string
		old   string // "": no file before
		write func(io.Writer) error
		want  string // "": no file after
		err   bool
	}{
		{"a failed write leaves no file", "", failing, "", true},
		{"a failed write keeps the older file", "old figure", failing, "old figure", true},
		{"a write replaces the older file", "old figure", whole, "the whole figure", false},
		{"a write makes the file", "", whole, "the whole figure", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "fig.png")
			if tc.old != "" {
				if err := os.WriteFile(path, []byte(tc.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteFile(path, tc.write)
			if (err != nil) != tc.err {
				t.Fatalf("WriteFile: %v, want an error: %v", err, tc.err)
			}
			if err != nil && !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name %s", err, path)
			}
			b, rerr := os.ReadFile(path)
			switch {
			case tc.want == "" && rerr == nil:
				t.Errorf("%s holds %q, want no file", path, b)
			case tc.want != "" && string(b) != tc.want:
				t.Errorf("%s holds %q (%v), want %q", path, b, rerr, tc.want)
			}
			if tc.want != "" {
				if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
					t.Errorf("%s: mode %v (%v), want 0644", path, fi.Mode().Perm(), err)
				}
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if e.Name() != "fig.png" {
					t.Errorf("%s left behind", e.Name())
				}
			}
		})
	}
}

// TestSave: a figure is written as PNG at DPI and as SVG.
func TestSave(t *testing.T) {
	base := filepath.Join(t.TempDir(), "f")
	paint := func(c draw.Canvas) {
		p := New()
		p.Title.Text = "a title"
		p.Draw(c)
	}
	files, err := Save(base, 2*vg.Inch, 1*vg.Inch, paint)
	if err != nil || !slices.Equal(files, []string{base + ".png", base + ".svg"}) {
		t.Fatalf("Save: %q %v", files, err)
	}
	b, err := os.ReadFile(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width != 2*DPI || cfg.Height != DPI {
		t.Errorf("PNG %dx%d (%v), want %dx%d", cfg.Width, cfg.Height, err, 2*DPI, DPI)
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil || !bytes.Contains(svg, []byte(">a title<")) {
		t.Errorf("the SVG does not hold the title (%v)", err)
	}
}

// TestCallers: maple plot (report) and maple reproduce (experiments)
// draw through this package alone: both import it, neither renders a
// canvas itself (vgimg, vgsvg) nor writes a file with os.Create, and
// report does not import experiments.
func TestCallers(t *testing.T) {
	const mod = "github.com/maple-ood/maple/"
	for _, tc := range []struct {
		name, dir string
		banned    []string
	}{
		{"report", "../../report", []string{"gonum.org/v1/plot/vg/vgimg", "gonum.org/v1/plot/vg/vgsvg", mod + "experiments"}},
		{"experiments", "../../experiments", []string{"gonum.org/v1/plot/vg/vgimg", "gonum.org/v1/plot/vg/vgsvg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			files, err := filepath.Glob(filepath.Join(tc.dir, "*.go"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no Go files in %s (%v)", tc.dir, err)
			}
			uses := false
			for _, name := range files {
				if strings.HasSuffix(name, "_test.go") {
					continue
				}
				f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
				if err != nil {
					t.Fatal(err)
				}
				for _, im := range f.Imports {
					p, _ := strconv.Unquote(im.Path.Value)
					uses = uses || p == mod+"internal/figure"
					if slices.Contains(tc.banned, p) {
						t.Errorf("%s imports %s", name, p)
					}
				}
				src, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(src, []byte("os.Create(")) {
					t.Errorf("%s writes a file with os.Create (figure.WriteFile writes it atomically)", name)
				}
			}
			if !uses {
				t.Errorf("package %s does not import internal/figure", tc.name)
			}
		})
	}
}
