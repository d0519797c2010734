package setting

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// Dist is a distribution a random search draws a setting from.
type Dist interface {
	Draw(r *rand.Rand) float64
	String() string
}

// LogUniform draws 10^u, u uniform between log10(Lo) and log10(Hi) (as
// DomainBed's hyperparameter registry draws learning rates).
type LogUniform struct{ Lo, Hi float64 }

func (d LogUniform) Draw(r *rand.Rand) float64 {
	lo, hi := math.Log10(d.Lo), math.Log10(d.Hi)
	return math.Pow(10, lo+(hi-lo)*r.Float64())
}

func (d LogUniform) String() string {
	return "10^U(" + strconv.FormatFloat(math.Log10(d.Lo), 'g', 3, 64) + ", " + strconv.FormatFloat(math.Log10(d.Hi), 'g', 3, 64) + ")"
}

// Uniform draws uniformly between Lo and Hi.
type Uniform struct{ Lo, Hi float64 }

func (d Uniform) Draw(r *rand.Rand) float64 { return d.Lo + (d.Hi-d.Lo)*r.Float64() }

func (d Uniform) String() string {
	return "U(" + strconv.FormatFloat(d.Lo, 'g', 3, 64) + ", " + strconv.FormatFloat(d.Hi, 'g', 3, 64) + ")"
}

// Param is one setting of a search space: a field (as SettingError names
// it, "EvalSettings.LR"), its distribution, and whether the value is a
// whole number (rounded after the draw).
type Param struct {
	Field string
	Dist  Dist
	Int   bool
}

// Draw draws the parameter's value, formatted as a flag takes it: four
// significant digits (so that a cell's label and hash stay readable),
// or a whole number.
func (p Param) Draw(r *rand.Rand) string {
	x := p.Dist.Draw(r)
	if p.Int {
		return strconv.FormatInt(int64(math.Round(x)), 10)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}
