// Package figure is the one pipeline of the program's figures: `maple
// plot` (package report) and `maple reproduce` (package experiments)
// draw through it. It fixes the resolution of a PNG and the typeface of
// every text, renders a drawing as PNG and SVG, and writes each file
// atomically: a temporary file beside it, renamed over it once whole.
package figure

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// DPI is the resolution of every PNG: a 6-inch figure is 900 pixels
// wide.
const DPI = 150

// Font is the typeface of every text in a figure: Liberation Serif, which
// gonum embeds (no system font is read). Sizes are each figure's own.
var Font = font.Font{Typeface: "Liberation", Variant: "Serif"}

// Tableau are Tableau's ten colours, the figures' palette.
var Tableau = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255}, color.RGBA{214, 39, 40, 255},
	color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255}, color.RGBA{227, 119, 194, 255}, color.RGBA{127, 127, 127, 255},
	color.RGBA{188, 189, 34, 255}, color.RGBA{23, 190, 207, 255},
}

// New returns an empty plot whose title, axis labels, tick labels and
// legend are set in Font.
func New() *plot.Plot {
	p := plot.New()
	for _, ts := range []*draw.TextStyle{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		ts.Font = inFont(ts.Font)
	}
	return p
}

// NewLegend returns an empty legend set in Font.
func NewLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = inFont(l.TextStyle.Font)
	return l
}

// inFont is f in Font's typeface, at f's size.
func inFont(f font.Font) font.Font {
	g := Font
	g.Size = f.Size
	return g
}

// Render draws paint on a w x h canvas, as PNG (at DPI) and as SVG. what
// names the figure in an error.
func Render(what string, w, h vg.Length, paint func(draw.Canvas)) (png, svg []byte, err error) {
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))
	paint(draw.New(img))
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&pb); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	sv := vgsvg.New(w, h)
	paint(draw.New(sv))
	var sb bytes.Buffer
	if _, err := sv.WriteTo(&sb); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	return pb.Bytes(), sb.Bytes(), nil
}

// Write writes base.png and base.svg, each atomically, and returns their
// paths.
func Write(base string, png, svg []byte) ([]string, error) {
	paths := []string{base + ".png", base + ".svg"}
	for i, b := range [][]byte{png, svg} {
		if err := WriteFile(paths[i], func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// Save renders paint on a w x h canvas and writes it as base.png and
// base.svg (Render, then Write).
func Save(base string, w, h vg.Length, paint func(draw.Canvas)) ([]string, error) {
	png, svg, err := Render(filepath.Base(base), w, h, paint)
	if err != nil {
		return nil, err
	}
	return Write(base, png, svg)
}

// Remove removes base.png and base.svg where they exist.
func Remove(base string) error {
	for _, ext := range []string{".png", ".svg"} {
		if err := os.Remove(base + ext); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// WriteFile writes path atomically: write fills a temporary file in
// path's directory, which is renamed over path once written and closed.
// On an error path is as it was (absent, or its old content) and the
// temporary file is gone. The file's mode is 0644.
func WriteFile(path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
