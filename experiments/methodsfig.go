package experiments

import (
	"fmt"

	"github.com/maple-ood/maple/internal/figure/methodsfig"
)

// MethodsFigure is the base name of the figure drawn from summary.csv
// (.png and .svg).
const MethodsFigure = methodsfig.Name

// The summary columns' helpers the methods figure and the page share.
var (
	sweepsOf     = methodsfig.Sweeps
	sweepText    = methodsfig.SweepText
	size         = methodsfig.Size
	settingParts = methodsfig.SettingParts
)

// MethodsFigureOf draws summary.csv's figure: for each configuration, top
// to bottom in the table's order, its mean test accuracy and test
// worst-group accuracy as two horizontal bars, each with its ± sample sd
// where n > 1, named on the left as methodsfig.ConfigLabels names it; the figure is
// as tall as its rows need. It returns the PNG and the SVG.
func MethodsFigureOf(t *Table) (png, svg []byte, err error) {
	if len(t.Rows) == 0 {
		return nil, nil, fmt.Errorf("%s has no rows", SummaryFile)
	}
	return methodsfig.Draw(t.Rows, "Experiment "+t.Rows[0]["experiment"])
}

// WriteMethodsFigure writes MethodsFigureOf's PNG and SVG of summary
// into dir.
func WriteMethodsFigure(dir string, summary *Table) error {
	png, svg, err := MethodsFigureOf(summary)
	return writeFigure(dir, MethodsFigure, png, svg, err)
}
