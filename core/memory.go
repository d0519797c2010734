package core

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

// interval is a closed or open range of a numeric setting.
type interval struct {
	lo, hi         float64
	loOpen, hiOpen bool
}

func (r interval) holds(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	if v < r.lo || (r.loOpen && v == r.lo) || v > r.hi || (r.hiOpen && v == r.hi) {
		return false
	}
	return true
}

func (r interval) String() string {
	l, h := "[", "]"
	if r.loOpen {
		l = "("
	}
	if r.hiOpen {
		h = ")"
	}
	hi := fmt.Sprint(r.hi)
	if math.IsInf(r.hi, 1) {
		hi, h = "inf", ")"
	}
	return fmt.Sprintf("a finite number in %s%g, %s%s", l, r.lo, hi, h)
}

var (
	positive    = interval{lo: 0, hi: math.Inf(1), loOpen: true}
	nonNegative = interval{lo: 0, hi: math.Inf(1)}
	fraction    = interval{lo: 0, hi: 1, loOpen: true}
	unit        = interval{lo: 0, hi: 1}
	below1      = interval{lo: 0, hi: 1, hiOpen: true}
	maskEps     = interval{lo: 0, hi: 0.01}
)

// A SettingError is a refused setting. Field names it by its place in
// the settings (Settings.InnerLR, EvalSettings.Steps); Text is what
// follows the field and its value, and may name other fields in braces
// ({Settings.Keep0}). Format renders the names for a reader who knows
// them otherwise (package runs: by their flags).
type SettingError struct {
	Field string
	Value string // the refused value as shown ("" shows none)
	Text  string // ": want ...", or " is above ..."
	Err   error  // the cause, when a parser refused the value
}

var fieldRef = regexp.MustCompile(`\{[A-Za-z.0-9]+\}`)

// Format renders the error with name(field) for every field it names.
func (e *SettingError) Format(name func(field string) string) string {
	s := name(e.Field)
	if e.Value != "" {
		s += " " + e.Value
	}
	return s + fieldRef.ReplaceAllStringFunc(e.Text, func(m string) string { return name(m[1 : len(m)-1]) })
}

func (e *SettingError) Error() string {
	return e.Format(func(f string) string { return f })
}

func (e *SettingError) Unwrap() error { return e.Err }

// settingErr wraps err, the refusal of field's value by a parser.
func settingErr(field string, err error) error {
	return &SettingError{Field: field, Text: ": " + err.Error(), Err: err}
}

// checkNum refuses a numeric setting outside its range, naming its field.
func checkNum(field string, v float64, r interval) error {
	if !r.holds(v) {
		return &SettingError{Field: field, Value: fmt.Sprintf("%g", v), Text: fmt.Sprintf(": want %s", r)}
	}
	return nil
}

func checkInt(field string, v, lo int) error {
	if v < lo {
		return &SettingError{Field: field, Value: fmt.Sprint(v), Text: fmt.Sprintf(": want at least %d", lo)}
	}
	return nil
}

// maxIters bounds the iteration and step counts: a million outer
// iterations or steps is beyond any search this tool is for, and a
// larger count is a typo or a damaged file.
const maxIters = 1_000_000

func checkCount(field string, v, lo int) error {
	if v < lo || v > maxIters {
		return &SettingError{Field: field, Value: fmt.Sprint(v), Text: fmt.Sprintf(": want %d to %d", lo, maxIters)}
	}
	return nil
}

func oneOf(field, v string, options []string) error {
	for _, o := range options {
		if o == v {
			return nil
		}
	}
	return &SettingError{Field: field, Value: strconv.Quote(v), Text: ": want one of " + strings.Join(options, ", ")}
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// NumParams returns the parameter count of model on sp's data.
func NumParams(sp *dataset.Splits, model string) (int, error) {
	net, err := newModel[float32](model, sp.Train.Shape, outputs(sp.Train))
	if err != nil {
		return 0, err
	}
	return net.NumParams(), nil
}

// Memory estimates the bytes a run of method (maple or a baseline) with
// these settings needs on sp, without allocating any of it: the
// features, the per-sample vectors, the parameter-sized copies of the
// search and evaluation models, and their work buffers.
func Memory(sp *dataset.Splits, method string, set Settings, ev EvalSettings) (int64, error) {
	n, d := float64(sp.Train.N), float64(sp.Train.D)
	all := float64(sp.Train.N + sp.Val.N + sp.Test.N)
	bytes := all * d * 4 // features, float32
	k := outputs(sp.Train)
	params := func(model string) (float64, error) {
		n, err := NumParams(sp, model)
		return float64(n), err
	}
	if method == "maple" {
		ps, err := params(set.Model)
		if err != nil {
			return 0, settingErr("Settings.Model", err)
		}
		// theta0, theta, grad, momentum, prev, buf, final, outer gradient,
		// warm theta; the kept subset's features; ~30 float64 per sample;
		// logits and tangents over all samples.
		bytes += ps*4*10 + n*d*4 + n*30*8 + all*float64(k)*4*4 + 4*float64(nets.WorkBudget)
	}
	pe, err := params(ev.Model)
	if err != nil {
		return 0, settingErr("EvalSettings.Model", err)
	}
	// Evaluation: theta, grad, momentum, the selected copy, plus work.
	bytes += pe*4*5 + 4*float64(nets.WorkBudget)
	return int64(bytes), nil
}
