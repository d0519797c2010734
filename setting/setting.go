package setting

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// An Interval is a closed or open range of a numeric setting.
type Interval struct {
	Lo, Hi         float64
	LoOpen, HiOpen bool
}

// Holds tells whether v is a finite number in the interval.
func (r Interval) Holds(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	if v < r.Lo || (r.LoOpen && v == r.Lo) || v > r.Hi || (r.HiOpen && v == r.Hi) {
		return false
	}
	return true
}

func (r Interval) String() string {
	return "a finite number in " + r.Span()
}

// Span is the interval as people write it: (0, 10], [0, inf).
func (r Interval) Span() string {
	l, h := "[", "]"
	if r.LoOpen {
		l = "("
	}
	if r.HiOpen {
		h = ")"
	}
	hi := fmt.Sprint(r.Hi)
	if math.IsInf(r.Hi, 1) {
		hi, h = "inf", ")"
	}
	return fmt.Sprintf("%s%g, %s%s", l, r.Lo, hi, h)
}

// MaxRate bounds every learning rate and step size: the experiments and
// the random search use at most 3, and a rate above 10 is a typo (or a
// run.json edited by hand) that would fail the run after it was made.
const MaxRate = 10

// Recorded is rate v as a run recorded before MaxRate bounds it: a
// finite rate above MaxRate counts as MaxRate, so that the bound refuses
// rates people give now and never a run that exists (its run.json, its
// checkpoint's rates, its search resumed, its final training).
func Recorded(v float64) float64 {
	if v > MaxRate && !math.IsInf(v, 1) {
		return MaxRate
	}
	return v
}

// The ranges most settings use. Rate and RateOrZero are every learning
// rate's, for a new run and for a change of rates mid-search alike.
var (
	Rate        = Interval{Lo: 0, Hi: MaxRate, LoOpen: true}
	RateOrZero  = Interval{Lo: 0, Hi: MaxRate}
	Positive    = Interval{Lo: 0, Hi: math.Inf(1), LoOpen: true}
	NonNegative = Interval{Lo: 0, Hi: math.Inf(1)}
	Fraction    = Interval{Lo: 0, Hi: 1, LoOpen: true}
	Unit        = Interval{Lo: 0, Hi: 1}
	Below1      = Interval{Lo: 0, Hi: 1, HiOpen: true}
)

// An Error is a refused setting. Field names it by its place in the
// settings (Settings.InnerLR, EvalSettings.Steps); Text is what follows
// the field and its value, and may name other fields in braces
// ({Settings.Keep0}). Format renders the names for a reader who knows
// them otherwise (package config: by their flags).
type Error struct {
	Field string
	Value string // the refused value as shown ("" shows none)
	Text  string // ": want ...", or " is above ..."
	Err   error  // the cause, when a parser refused the value
}

var fieldRef = regexp.MustCompile(`\{[A-Za-z.0-9]+\}`)

// Format renders the error with name(field) for every field it names.
func (e *Error) Format(name func(field string) string) string {
	s := name(e.Field)
	if e.Value != "" {
		s += " " + e.Value
	}
	return s + fieldRef.ReplaceAllStringFunc(e.Text, func(m string) string { return name(m[1 : len(m)-1]) })
}

func (e *Error) Error() string {
	return e.Format(func(f string) string { return f })
}

func (e *Error) Unwrap() error { return e.Err }

// Renamed is an error whose text names a field as its reader knows it
// (Error.Format: by its flag, or as run.json spells it) where the *Error
// it wraps names core's field path.
type Renamed struct {
	Text string
	Err  error
}

func (e *Renamed) Error() string { return e.Text }
func (e *Renamed) Unwrap() error { return e.Err }

// Parsed wraps err, the refusal of field's value by a parser.
func Parsed(field string, err error) error {
	return &Error{Field: field, Text: ": " + err.Error(), Err: err}
}

// Num refuses a numeric setting outside its range, naming its field.
func Num(field string, v float64, r Interval) error {
	if !r.Holds(v) {
		return &Error{Field: field, Value: fmt.Sprintf("%g", v), Text: fmt.Sprintf(": want %s", r)}
	}
	return nil
}

// Int refuses an integer setting below lo.
func Int(field string, v, lo int) error {
	if v < lo {
		return &Error{Field: field, Value: fmt.Sprint(v), Text: fmt.Sprintf(": want at least %d", lo)}
	}
	return nil
}

// MaxIters bounds the iteration and step counts: a million outer
// iterations or steps is beyond any search this tool is for, and a
// larger count is a typo or a damaged file.
const MaxIters = 1_000_000

// Count refuses an iteration or step count below lo or above MaxIters.
func Count(field string, v, lo int) error {
	if v < lo || v > MaxIters {
		return &Error{Field: field, Value: fmt.Sprint(v), Text: fmt.Sprintf(": want %d to %d", lo, MaxIters)}
	}
	return nil
}

// OneOf refuses a string setting that is none of options.
func OneOf(field, v string, options []string) error {
	for _, o := range options {
		if o == v {
			return nil
		}
	}
	return &Error{Field: field, Value: strconv.Quote(v), Text: ": want one of " + strings.Join(options, ", ")}
}

// First returns the first non-nil error.
func First(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
