package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/maple-ood/maple/dataset"
)

// isImage says a dataset's samples are pictures (a height and a width
// above one), not rows of features.
func isImage(sh dataset.Shape) bool { return sh.H > 1 && sh.W > 1 && sh.C >= 1 && sh.C <= 3 }

// pictureCols is how many cells wide picture draws an image of sh in a
// pane w cells wide: its width, twice it for an image of at most 16
// pixels (ColoredMNIST's 14x14) when five such pictures fit side by side,
// never wider than the pane.
func pictureCols(sh dataset.Shape, w int) int {
	cols := sh.W
	if sh.W <= 16 && 5*(2*sh.W+1) <= w+1 {
		cols = 2 * sh.W
	}
	return max(4, min(cols, w))
}

// picture draws the image x (channels first, values in [0, 1], of shape
// sh) cols cells wide, with the aspect ratio kept. In colour each cell is
// an upper half block, its foreground the upper pixel and its background
// the lower one, the channels kept (one channel grey, two red and green
// as ColoredMNIST's, three RGB); in mono (NO_COLOR) each cell is a plain
// character of a brightness ramp over its two pixels.
func picture(x []float32, sh dataset.Shape, cols int, mono bool) []string {
	rows := max(1, int(math.Round(float64(cols)*float64(sh.H)/float64(sh.W)/2)))
	plane := sh.H * sh.W
	// px is the colour of the pixel nearest to (fy, fx) in [0, 1).
	px := func(fy, fx float64) (r, g, b float64) {
		y, xx := min(int(fy*float64(sh.H)), sh.H-1), min(int(fx*float64(sh.W)), sh.W-1)
		at := func(c int) float64 { return math.Min(1, math.Max(0, float64(x[c*plane+y*sh.W+xx]))) }
		switch sh.C {
		case 1:
			v := at(0)
			return v, v, v
		case 2:
			return at(0), at(1), 0
		}
		return at(0), at(1), at(2)
	}
	const ramp = " .:-=+*#%@"
	out := make([]string, rows)
	for r := range rows {
		var b strings.Builder
		for c := range cols {
			fx := (float64(c) + 0.5) / float64(cols)
			r1, g1, b1 := px((float64(2*r)+0.5)/float64(2*rows), fx)
			r2, g2, b2 := px((float64(2*r)+1.5)/float64(2*rows), fx)
			if mono {
				v := (math.Max(r1, math.Max(g1, b1)) + math.Max(r2, math.Max(g2, b2))) / 2
				b.WriteByte(ramp[min(len(ramp)-1, int(v*float64(len(ramp))))])
				continue
			}
			fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm\x1b[48;2;%d;%d;%dm▀", byte255(r1), byte255(g1), byte255(b1), byte255(r2), byte255(g2), byte255(b2))
		}
		if !mono {
			b.WriteString("\x1b[m")
		}
		out[r] = b.String()
	}
	return out
}

func byte255(v float64) int { return int(math.Round(255 * v)) }
