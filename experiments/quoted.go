package experiments

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A hand-written page (the README outside its generated headline,
// docs/PAPER.md, docs/SIDE-BY-SIDE.md, docs/PERFORMANCE.md...) quotes
// figures of the committed CSVs and printouts. Each quoted figure
// carries a reference to what it quotes, in an HTML comment right after
// it (invisible on GitHub):
//
//	maple/irmv1 70.0 ± 0.7<!--= cm-maple/maple/irmv1 -->
//	scores 70.2, 70.0 and 70.5<!--= width-maple/maple/rex@64~0; width-maple/maple/rex@128~0; width-maple/maple/rex@390~0 -->
//
// A comment's references, separated by ";", bind in order to the
// figures just before it (since the previous comment). CheckQuoted
// recomputes each from the CSVs and reports a figure that differs, and
// a figure in a results context (a "mean ± sd", a percentage, "N
// points", a p-value, a number with one decimal) that has no reference.
//
// A reference is one of:
//
//	SWEEP/METHOD[@W][~N][#SEED][.COL]  a configuration of an experiment's summary.csv:
//	                                   @W its model mlp:W,W (or @MODEL), ~N its train_size;
//	                                   COL a column (test_acc by default, or test_worst,
//	                                   val_worst, conflict_weight_pct, keep_pct, minutes...);
//	                                   quoted as "mean ± sd", or as the mean alone;
//	                                   #SEED: that seed's value in runs.csv
//	SWEEP+SWEEP/METHOD...             the runs a choice per seed on validation among the
//	                                   sweeps keeps (as an experiment's [[choice]])
//	archive:FILE/METHOD[@W][~N][#SEED][.COL]
//	                                   the same of docs/results/archive/FILE.csv: a row per
//	                                   configuration (COL_mean, COL_sd) or a row per run
//	archive:FILE[K=V,...][.COL]        the rows of docs/results/archive/FILE.csv whose column
//	                                   K is V (or, with V as FROM-TO, a number from FROM to
//	                                   TO): one row's COL, or the mean ± sd over the rows
//	log:FILE[K=V,...].KEY              the same of the records of a committed printout,
//	                                   docs/FILE: its lines "TAG {json}" (a word, then a JSON
//	                                   object), as the MAPLE code's INSTR lines are:
//	                                   log:sidebyside/authors/irmv1-seed1.log[iter=2].kept
//	                                   (an empty cell, or a record without KEY, is no value;
//	                                   a filter's value may hold a comma: [run=full batch, before])
//	bench:FILE[K=V,...].METRIC         the same of a committed Go benchmark printout, docs/FILE:
//	                                   each result line a record with name (without Benchmark
//	                                   and -GOMAXPROCS), n and its metrics by unit; each line of
//	                                   uptime's one with load1, load5, load15:
//	                                   bench:results/speed/step-bytes.txt[name=Step/jvp/nets].B/op
//	time:FILE[K=V,...].KEY             the same of a committed /usr/bin/time -v printout: a run
//	                                   per "== TITLE" (run=TITLE), each "Label: value" a field
//	                                   by its label in lower case, other characters "_"
//	                                   (maximum_resident_set_size_kbytes), clock times in s
//	csv:FILE[K=V,...].COL              the same of a committed CSV, docs/FILE
//	                                   (csv:results/scaling/scaling.csv[n=1000000].peak_rss_mib)
//	A - B                              the difference of two means (test_acc over runs)
//	p(A, B)                            Welch's p of A against B over their runs
//	tp(A, COL) / holm(A, COL)          the p (or Holm-adjusted p) of A's cell in its
//	                                   experiment table's column COL (alike, any, reads,
//	                                   oracle, ref), as docs/RESULTS.md prints it
//	td(A, COL) / toracle(A)            the difference A's cell of column COL prints, or
//	                                   the oracle's mean its oracle cell prints (where the
//	                                   compared side's training is chosen per seed)
//	A - B - 1                          the terms may also be numbers or functions
//	iter(A.COL, N)                     iterations.csv's COL at iterate N (sel: the selected
//	                                   one) of A's run (#SEED) or, mean over its runs
//	irange(A.COL, FROM, TO)            the least and greatest of COL over iterates FROM-TO
//	                                   (of A's seed #SEED, or of all its runs)
//	mrange(A.COL, FROM, TO)            the least and greatest over iterates FROM-TO of the
//	                                   mean over A's runs; imean: the mean of those means
//	igap(A.COL, B.COL, FROM, TO)       the largest gap between A's and B's runs of one seed
//	                                   at one iterate, over iterates FROM-TO
//	ifirst(A.COL, LEVEL)               the first iterate at which the mean over A's runs (or
//	                                   seed #SEED's value) reaches LEVEL; over several seeds,
//	                                   range(ifirst(A#1.COL, L), ifirst(A#2.COL, L), ...)
//	isince(A.COL, LEVEL)               the first iterate from which that mean (or value)
//	                                   stays at LEVEL or more to the last iterate
//	ipeak(A.COL, FROM, TO)             the iterate FROM-TO of the greatest mean over A's runs
//	                                   (or of seed #SEED's value)
//	range(X, Y, ...)                   the least and the greatest of the values, "lo-hi"
//	                                   (each value of a record reference among them)
//	min(X, ...) / max(X, ...)          the least or the greatest
//	arange, amin, amax                 the same of the values' magnitudes
//	pct(X)                             100 times X: a fraction quoted as a percentage
//	ratio(X, Y)                        X over Y, each a reference or a number
//	sd(X)                              the sd of X's mean ± sd
//	ci(X)                              the 95% Student-t interval of X's mean over its
//	                                   runs, "lo-hi"
//	n(X)                               how many values X has (runs, or records)
//	sum(X)                             the sum of X's values (runs, or records)
//	median(X)                          the median of X's values (runs, or records)
//	under(L, X, ...) / over(L, X, ...) how many of the values (each value of a record
//	                                   reference among them) lie below (above) L:
//	                                   under(0.05, tp(A, alike), tp(B, alike))
//	within(L, COL, A, ...)             the width (A's @W) of the one cell among A, ...
//	                                   whose td(A, COL) is L or less either way (an error
//	                                   when none or several are)
//	inside(A, B, KEY)                  how many of A's records lie within the least and the
//	                                   greatest of B's records of the same KEY (where B has
//	                                   two or more): inside(archive:F[source=maple].ref_test,
//	                                   archive:F[source=code].ref_test, iter)
//	= TEXT                             a number that is not a result (a setting, a count):
//	                                   the reference is the text itself, with why after
//	                                   a "#": "= 1.5 # the keep rate"
//
// A figure written without a sign quotes the reference's magnitude (the
// prose carries the sign: "1.9 below"); one written with a sign, the
// value. Where a difference (td, A - B) is quoted without its sign, a
// direction word after it (past the other figures of its list: below,
// under, lower, less, behind; above, over, higher, more, ahead) must
// agree with its sign. The least of several p-values (min, amin) is
// written after ">=" or "at least", the greatest (max, amax) after "<="
// or "at most". A mean ± sd and a difference print with one decimal, a
// p-value as docs/RESULTS.md prints it (two significant digits); any
// other value with the decimals the page writes.

// QuotedProblem is a figure of a page that fails the check.
type QuotedProblem struct {
	Line int
	Msg  string
}

func (p QuotedProblem) String() string { return fmt.Sprintf("line %d: %s", p.Line, p.Msg) }

// quoteComment is a reference comment.
var quoteComment = regexp.MustCompile(`<!--=([^>]*?)-->`)

// figureToken is a number as a page writes a figure: an optional sign,
// then "X", "X ± Y" or a range "X-Y".
var figureToken = regexp.MustCompile(`([+-]?)(\d+(?:\.\d+)?)(?:(\s+±\s+)(\d+(?:\.\d+)?)|(-)(\d+(?:\.\d+)?))?`)

// token is one figure of a page.
type token struct {
	start, end int // byte offsets in the page
	text       string
	signed     bool
	a, b       string // b: the sd or the range's upper end ("" for one number)
	pair       bool   // a "mean ± sd"
	results    bool   // in a results context: it must carry a reference
}

// maskPage returns text with what holds no quoted figure blanked (the
// same length, newlines kept): fenced code blocks (captured screens),
// inline code and generated blocks (the README's headline,
// PERFORMANCE's Speed and scaling tables, SIDE-BY-SIDE's tables: each
// checked by a test of its own);
// maskComments then blanks the HTML comments.
func maskPage(text string) string {
	b := []byte(text)
	blank := func(i, j int) {
		for k := i; k < j; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	// Generated blocks: <!-- NAME:start (generated ...) --> (or
	// "(go test ...)", the command that writes it) to <!-- NAME:end -->.
	for _, m := range generatedStart.FindAllStringSubmatchIndex(text, -1) {
		end := "<!-- " + text[m[2]:m[3]] + ":end -->"
		if j := strings.Index(text[m[1]:], end); j >= 0 {
			blank(m[0], m[1]+j+len(end))
		}
	}
	// Fenced code blocks.
	off, fence := 0, -1
	for _, l := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if fence < 0 {
				fence = off
			} else {
				blank(fence, off+len(l))
				fence = -1
			}
		}
		off += len(l)
	}
	for _, m := range inlineCode.FindAllStringIndex(string(b), -1) {
		blank(m[0], m[1])
	}
	return string(b)
}

var (
	generatedStart = regexp.MustCompile(`<!-- ([\w-]+):start \((?:generated|go test )`)
	inlineCode     = regexp.MustCompile("`[^`]*`")
	htmlComment    = regexp.MustCompile(`(?s)<!--.*?-->`)
)

// maskComments blanks the HTML comments of a page masked by maskPage.
func maskComments(codeless string) string {
	b := []byte(codeless)
	for _, m := range htmlComment.FindAllStringIndex(codeless, -1) {
		for k := m[0]; k < m[1]; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	return string(b)
}

var (
	pBefore    = regexp.MustCompile(`\bp\s*(?:=|>=|<=|<|>)\s*(?:[\d.e-]+(?:,\s*|\s+and\s+|\s+or\s+))*$`)
	unitAfter  = regexp.MustCompile(`^(?:\s*%|\s+points?\b|x\b|\s?(?:s|ms|minutes?|hours?|seconds?|MiB|GiB|MB|GB|KiB)\b|\s+CPU-(?:seconds|minutes)\b|\s+runs\b)`)
	oneDecimal = regexp.MustCompile(`^\d+\.\d$`)
	wordBefore = regexp.MustCompile(`(?:[\w.:/@~#]|\d,)$`)
	// approxBefore: a "~" that is no part of a name (~15000 samples,
	// not irmv1~2000): an approximate figure, a measured one.
	approxBefore = regexp.MustCompile(`(?:^|[^\w.:/@~#])~$`)
	versionLike  = regexp.MustCompile(`^\.\d`)
	exponent     = regexp.MustCompile(`^e-?\d`)
)

// tokens returns the figures of a masked page.
func tokens(masked string) []token {
	var out []token
	for _, m := range figureToken.FindAllStringSubmatchIndex(masked, -1) {
		start := m[0]
		before := masked[max(0, start-80):start]
		sign := masked[m[2]:m[3]]
		approx := sign == "" && approxBefore.MatchString(before)
		if sign == "" && !approx && wordBefore.MatchString(before) {
			continue // part of a word or a name (mlp:390, eps1e-14, v0.9.18)
		}
		if sign != "" && wordBefore.MatchString(before) {
			continue // a hyphen inside a name (abl-preset-eps1e-17)
		}
		if versionLike.MatchString(masked[m[1]:min(len(masked), m[1]+2)]) || exponent.MatchString(masked[m[1]:min(len(masked), m[1]+3)]) {
			continue // a version or an address (1.26.1)
		}
		t := token{start: start, end: m[1], text: masked[m[0]:m[1]], signed: sign != "", a: masked[m[4]:m[5]]}
		switch {
		case m[6] >= 0:
			t.pair, t.b = true, masked[m[8]:m[9]]
		case m[10] >= 0:
			t.b = masked[m[12]:m[13]]
		}
		t.results = t.pair || approx || pBefore.MatchString(before) || unitAfter.MatchString(masked[t.end:min(len(masked), t.end+16)]) ||
			oneDecimal.MatchString(t.a) || (t.b != "" && oneDecimal.MatchString(t.b))
		out = append(out, t)
	}
	return out
}

// Quoted holds what references read: every experiment's CSVs and the
// archive's.
type Quoted struct {
	// NotResults are phrases whose numbers are no results (a setting, a
	// target, a level): their figures need no reference.
	NotResults []*regexp.Regexp

	all  []Results
	docs string
	cmp  map[string]tableCmp // each experiment table's comparisons, by name
	// chosen: each choice's outcome, by its sweeps.
	chosen map[string][]Chosen
	// memo: each reference's value once computed (the CSVs do not change).
	memo map[string]memoValue
	// files: the records of each archived CSV and printout read, by
	// "archive:FILE" or "log:FILE".
	files map[string][]map[string]string
}

type memoValue struct {
	v   value
	err error
}

type tableCmp struct {
	keys  []string
	cells [][]cell
}

// NewQuoted reads the committed CSVs under docs.
func NewQuoted(docs string) (*Quoted, error) {
	all, err := ReadAll(docs)
	if err != nil {
		return nil, err
	}
	return &Quoted{all: all, docs: docs}, nil
}

// CheckQuoted checks the figures of a hand-written page against the
// CSVs and returns its problems, in page order, and the number of
// figures it checked against a reference.
func (q *Quoted) CheckQuoted(text string) (probs []QuotedProblem, checked int) {
	codeless := maskPage(text)
	masked := maskComments(codeless)
	for _, re := range q.NotResults {
		b := []byte(masked)
		for _, m := range re.FindAllStringIndex(text, -1) {
			for k := m[0]; k < m[1]; k++ {
				if b[k] != '\n' {
					b[k] = ' '
				}
			}
		}
		masked = string(b)
	}
	toks := tokens(masked)
	line := func(off int) int { return strings.Count(text[:off], "\n") + 1 }
	bound := make([]bool, len(toks))
	next := 0 // first token after the previous comment
	for _, c := range quoteComment.FindAllStringSubmatchIndex(codeless, -1) {
		// tokens before the comment
		end := next
		for end < len(toks) && toks[end].end <= c[0] {
			end++
		}
		refs := splitTop(text[c[2]:c[3]], ';')
		if len(refs) > end-next {
			probs = append(probs, QuotedProblem{line(c[0]), fmt.Sprintf("%d references, but %d figures since the previous reference", len(refs), end-next)})
			next = end
			continue
		}
		for i, ref := range refs {
			k := end - len(refs) + i
			bound[k] = true
			checked++
			if msg := q.check(toks[k], strings.TrimSpace(ref)); msg != "" {
				probs = append(probs, QuotedProblem{line(toks[k].start), msg})
			} else if msg := q.wording(masked, toks[k], strings.TrimSpace(ref)); msg != "" {
				probs = append(probs, QuotedProblem{line(toks[k].start), msg})
			}
		}
		next = end
	}
	for k, t := range toks {
		if t.results && !bound[k] {
			probs = append(probs, QuotedProblem{line(t.start), fmt.Sprintf("%q has no reference to what it quotes (add <!--= REF --> after it)", t.text)})
		}
	}
	sortProblems(probs)
	return probs, checked
}

var (
	// directionAfter: a direction word after an unsigned difference, past
	// the figures of its list ("1.6, 1.7 and 1.4 below").
	directionAfter = regexp.MustCompile(`^(?:[\s,%]+|and\b|or\b|points?\b|[+-]?\d+(?:\.\d+)?)*(below|under|lower|less|behind|above|over|higher|more|ahead)\b`)
	atLeastBefore  = regexp.MustCompile(`(?:>=|≥|at least)\s*$`)
	atMostBefore   = regexp.MustCompile(`(?:<=|≤|at most)\s*$`)
)

// wording checks the words around a figure that agrees with its
// reference: an unsigned difference's direction word must agree with
// its sign ("1.9 below" a negative one), and a least (greatest) p-value
// of several must read "p >= X" or "at least X" ("<=", "at most").
func (q *Quoted) wording(masked string, t token, ref string) string {
	m, ok := q.memo[ref]
	if !ok || m.err != nil {
		return ""
	}
	v := m.v
	if v.diff && !t.signed && v.v != 0 {
		if d := directionAfter.FindStringSubmatch(masked[t.end:min(len(masked), t.end+1000)]); d != nil {
			down := slices.Contains([]string{"below", "under", "lower", "less", "behind"}, d[1])
			if down != (v.v < 0) {
				return fmt.Sprintf("%q %s, but %s is %+.1f (the words after a difference must agree with its sign)", t.text, d[1], ref, v.v)
			}
		}
	}
	if name, _, isCall := call(ref); isCall && v.pvalue {
		before := masked[max(0, t.start-40):t.start]
		switch {
		case (name == "min" || name == "amin") && !atLeastBefore.MatchString(before):
			return fmt.Sprintf("%q is the least of several p-values: write \"p >= %s\" or \"at least %s\"", t.text, t.text, t.text)
		case (name == "max" || name == "amax") && !atMostBefore.MatchString(before):
			return fmt.Sprintf("%q is the greatest of several p-values: write \"p <= %s\" or \"at most %s\"", t.text, t.text, t.text)
		}
	}
	return ""
}

func sortProblems(p []QuotedProblem) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j].Line < p[j-1].Line; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

// splitTop splits s at sep outside parentheses and brackets.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, last := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[last:i])
				last = i + 1
			}
		}
	}
	return append(out, s[last:])
}

// value is what a reference gives: a number, a "mean ± sd" or a range,
// with how it prints.
type value struct {
	v, w   float64 // w: the sd or the range's upper end
	kind   int
	dec    int // decimals; -1: those the page writes
	pvalue bool
	// diff: a signed difference (td, A - B), whose direction the prose
	// words after an unsigned figure ("1.9 below") must agree with.
	diff bool
}

const (
	one = iota
	pairKind
	rangeKind
	literal
)

// check compares a figure with its reference; "" when they agree.
func (q *Quoted) check(t token, ref string) string {
	if lit, ok := strings.CutPrefix(ref, "="); ok {
		lit, _, _ = strings.Cut(lit, "#")
		if strings.TrimSpace(lit) != strings.TrimSpace(t.text) {
			return fmt.Sprintf("%q is not the literal %q its reference gives", t.text, strings.TrimSpace(lit))
		}
		return ""
	}
	m, ok := q.memo[ref]
	if !ok {
		m.v, m.err = q.eval(ref)
		if q.memo == nil {
			q.memo = map[string]memoValue{}
		}
		q.memo[ref] = m
	}
	v, err := m.v, m.err
	if err != nil {
		return fmt.Sprintf("%q: reference %q: %v", t.text, ref, err)
	}
	want := ""
	switch {
	case t.pair:
		if v.kind != pairKind {
			return fmt.Sprintf("%q is a mean ± sd, but %q gives one number", t.text, ref)
		}
		want = fmt.Sprintf("%.1f ± %.1f", v.v, v.w)
		got := t.a + " ± " + t.b
		if t.signed {
			got = t.text[:1] + got
		}
		if got != want {
			return fmt.Sprintf("%q, but %s gives %s", t.text, ref, want)
		}
		return ""
	case t.b != "":
		if v.kind != rangeKind {
			return fmt.Sprintf("%q is a range, but %q gives no range (use range(...))", t.text, ref)
		}
		lo, hi := format(v, v.v, t.a, false), format(v, v.w, t.b, false)
		if lo+"-"+hi != t.a+"-"+t.b {
			return fmt.Sprintf("%q, but %s gives %s-%s", t.text, ref, lo, hi)
		}
		return ""
	}
	if v.kind == rangeKind {
		return fmt.Sprintf("%q is one number, but %q gives a range", t.text, ref)
	}
	got := strings.TrimPrefix(t.text, "+")
	if want = format(v, v.v, t.a, t.signed); want != got {
		return fmt.Sprintf("%q, but %s gives %s", t.text, ref, want)
	}
	return ""
}

// format prints x as the reference's kind prints it, with the decimals
// of written where the kind has none of its own; unsigned, its
// magnitude.
func format(v value, x float64, written string, signed bool) string {
	if !signed {
		x = math.Abs(x)
	}
	if v.pvalue {
		return fmt.Sprintf("%.2g", x)
	}
	// The value's own decimals (an accuracy's one), or the page's where
	// it has none or writes more: more digits are checked, never fewer.
	dec, page := v.dec, 0
	if i := strings.IndexByte(written, '.'); i >= 0 {
		page = len(written) - i - 1
	}
	if dec < page {
		dec = page
	}
	s := strconv.FormatFloat(x, 'f', dec, 64)
	if s == "-"+strconv.FormatFloat(0, 'f', dec, 64) {
		s = s[1:]
	}
	return s
}

// eval computes a reference.
func (q *Quoted) eval(ref string) (value, error) {
	ref = strings.TrimSpace(ref)
	if name, args, ok := call(ref); ok {
		switch name {
		case "p":
			if len(args) != 2 {
				return value{}, fmt.Errorf("p takes two configurations")
			}
			a, err := q.runsOf(args[0])
			if err != nil {
				return value{}, err
			}
			b, err := q.runsOf(args[1])
			if err != nil {
				return value{}, err
			}
			_, _, _, p, ok := Welch(a, b)
			if !ok {
				return value{}, fmt.Errorf("no Welch's test (fewer than two runs a side)")
			}
			return value{v: p, kind: one, pvalue: true}, nil
		case "tp", "holm":
			if len(args) != 2 {
				return value{}, fmt.Errorf("%s takes a configuration and a column (alike, any, reads, oracle, ref)", name)
			}
			c, err := q.tableCell(args[0], strings.TrimSpace(args[1]))
			if err != nil {
				return value{}, err
			}
			p := c.p
			if name == "holm" {
				p = c.holm
			}
			if math.IsNaN(p) {
				return value{}, fmt.Errorf("the table's cell makes no test")
			}
			return value{v: p, kind: one, pvalue: true}, nil
		case "range", "min", "max", "arange", "amin", "amax":
			// a-: of the values' magnitudes (differences "below").
			var vs []value
			for _, a := range args {
				if isRecordRef(a) { // each of its values
					recs, err := q.recordValues(a)
					if err != nil {
						return value{}, err
					}
					for _, r := range recs {
						x := r.v
						if strings.HasPrefix(name, "a") {
							x = math.Abs(x)
						}
						vs = append(vs, value{v: x, kind: one, dec: -1})
					}
					continue
				}
				v, err := q.eval(a)
				if err != nil {
					return value{}, err
				}
				if strings.HasPrefix(name, "a") {
					v.v, v.w, v.diff = math.Abs(v.v), math.Abs(v.w), false
				}
				vs = append(vs, v)
				if v.kind == rangeKind { // both its ends
					v.v = v.w
					vs = append(vs, v)
				}
			}
			name = strings.TrimPrefix(name, "a")
			if len(vs) == 0 {
				return value{}, fmt.Errorf("%s of nothing", name)
			}
			lo, hi := vs[0], vs[0]
			for _, v := range vs[1:] {
				if v.v < lo.v {
					lo = v
				}
				if v.v > hi.v {
					hi = v
				}
			}
			switch name {
			case "min":
				lo.kind = one
				return lo, nil
			case "max":
				hi.kind = one
				return hi, nil
			}
			return value{v: lo.v, w: hi.v, kind: rangeKind, dec: -1, pvalue: lo.pvalue}, nil // a range prints as the page rounds it
		case "iter":
			// iterations.csv's column at an iterate (a number, or "sel"
			// for the selected one): one seed's, or the mean over seeds.
			if len(args) != 2 {
				return value{}, fmt.Errorf("iter takes a configuration with its column and an iterate (a number or sel)")
			}
			v, err := q.iterValues(args[0], args[1])
			if err != nil {
				return value{}, err
			}
			return value{v: Describe(v).Mean, kind: one, dec: -1}, nil
		case "mrange", "imean":
			// The mean over A's runs at each iterate from-to: the least and
			// the greatest of those means, or their mean.
			if len(args) != 3 {
				return value{}, fmt.Errorf("%s takes a configuration with its column and two iterates", name)
			}
			from, err1 := strconv.Atoi(args[1])
			to, err2 := strconv.Atoi(args[2])
			if err := firstErr(err1, err2); err != nil || from > to {
				return value{}, fmt.Errorf("%s: iterates %s to %s", name, args[1], args[2])
			}
			var means []float64
			for i := from; i <= to; i++ {
				v, err := q.iterValues(args[0], strconv.Itoa(i))
				if err != nil {
					return value{}, err
				}
				means = append(means, Describe(v).Mean)
			}
			if name == "imean" {
				return value{v: Describe(means).Mean, kind: one, dec: -1}, nil
			}
			return value{v: slices.Min(means), w: slices.Max(means), kind: rangeKind, dec: -1}, nil
		case "ifirst":
			// The first iterate at which the mean over A's runs (or seed
			// #SEED's value) of COL reaches LEVEL.
			its, means, level, err := q.iterLevel(name, args)
			if err != nil {
				return value{}, err
			}
			for i, m := range means {
				if m >= level {
					return value{v: float64(its[i]), kind: one, dec: 0}, nil
				}
			}
			return value{}, fmt.Errorf("ifirst: %s never reaches %s", args[0], args[1])
		case "isince":
			// The first iterate from which the mean over A's runs (or seed
			// #SEED's value) of COL stays at LEVEL or more to the last.
			its, means, level, err := q.iterLevel(name, args)
			if err != nil {
				return value{}, err
			}
			k := len(means)
			for k > 0 && means[k-1] >= level {
				k--
			}
			if k == len(means) {
				return value{}, fmt.Errorf("isince: %s ends below %s", args[0], args[1])
			}
			return value{v: float64(its[k]), kind: one, dec: 0}, nil
		case "ipeak":
			// The iterate from-to of the greatest mean over A's runs (or of
			// seed #SEED's value): the first of equal ones.
			if len(args) != 3 {
				return value{}, fmt.Errorf("ipeak takes a configuration with its column and two iterates")
			}
			from, err1 := strconv.Atoi(args[1])
			to, err2 := strconv.Atoi(args[2])
			if err := firstErr(err1, err2); err != nil || from > to {
				return value{}, fmt.Errorf("ipeak: iterates %s to %s", args[1], args[2])
			}
			its, means, err := q.iterMeans(args[0])
			if err != nil {
				return value{}, err
			}
			best, at := math.Inf(-1), -1
			for i, m := range means {
				if its[i] >= from && its[i] <= to && m > best {
					best, at = m, its[i]
				}
			}
			if at < 0 {
				return value{}, fmt.Errorf("ipeak: %s has no iterate from %d to %d", args[0], from, to)
			}
			return value{v: float64(at), kind: one, dec: 0}, nil
		case "under", "over":
			// How many of the values (each a reference, or each value of a
			// record reference) lie below (over: above) LEVEL.
			if len(args) < 2 {
				return value{}, fmt.Errorf("%s takes a level and references", name)
			}
			level, err := strconv.ParseFloat(args[0], 64)
			if err != nil {
				return value{}, fmt.Errorf("%s: level %q is no number", name, args[0])
			}
			k := 0
			for _, a := range args[1:] {
				var xs []float64
				if isRecordRef(a) {
					recs, err := q.recordValues(a)
					if err != nil {
						return value{}, err
					}
					for _, r := range recs {
						xs = append(xs, r.v)
					}
				} else {
					v, err := q.eval(a)
					if err != nil {
						return value{}, err
					}
					if v.kind == rangeKind {
						return value{}, fmt.Errorf("%s: %q gives a range", name, a)
					}
					xs = append(xs, v.v)
				}
				for _, x := range xs {
					if (name == "under" && x < level) || (name == "over" && x > level) {
						k++
					}
				}
			}
			return value{v: float64(k), kind: one, dec: 0}, nil
		case "within":
			// The one width (the @W of its reference) among the cells A
			// whose difference in column COL is LEVEL or less either way.
			if len(args) < 3 {
				return value{}, fmt.Errorf("within takes a level, a column (oracle, alike...) and cells")
			}
			level, err := strconv.ParseFloat(args[0], 64)
			if err != nil {
				return value{}, fmt.Errorf("within: level %q is no number", args[0])
			}
			var in []string
			for _, a := range args[2:] {
				s, err := parseSelector(a)
				if err != nil {
					return value{}, err
				}
				w, ok := strings.CutPrefix(s.model, "mlp:")
				w, _, _ = strings.Cut(w, ",")
				if !ok || w == "" {
					return value{}, fmt.Errorf("within: %q names no width (@W)", a)
				}
				d, err := q.eval("td(" + a + ", " + args[1] + ")")
				if err != nil {
					return value{}, err
				}
				if math.Abs(d.v) <= level {
					in = append(in, w)
				}
			}
			if len(in) != 1 {
				return value{}, fmt.Errorf("within: %d cells are within %s (widths %s), not one", len(in), args[0], strings.Join(in, ", "))
			}
			w, _ := strconv.ParseFloat(in[0], 64)
			return value{v: w, kind: one, dec: 0}, nil
		case "median":
			// The median of X's values (runs, or records).
			if len(args) != 1 {
				return value{}, fmt.Errorf("median takes one reference")
			}
			v, err := q.runsOf(args[0])
			if err != nil {
				return value{}, err
			}
			if len(v) == 0 {
				return value{}, fmt.Errorf("median: %q has no values", args[0])
			}
			v = slices.Clone(v)
			slices.Sort(v)
			m := v[len(v)/2]
			if len(v)%2 == 0 {
				m = (v[len(v)/2-1] + m) / 2
			}
			return value{v: m, kind: one, dec: -1}, nil
		case "igap":
			// The largest gap between two configurations' runs of the
			// same seed at the same iterate, over iterates from-to.
			if len(args) != 4 {
				return value{}, fmt.Errorf("igap takes two configurations with their column and two iterates")
			}
			from, err1 := strconv.Atoi(args[2])
			to, err2 := strconv.Atoi(args[3])
			if err := firstErr(err1, err2); err != nil || from > to {
				return value{}, fmt.Errorf("igap: iterates %s to %s", args[2], args[3])
			}
			gap, pairs := 0.0, 0
			for seed := 1; seed <= 10; seed++ {
				for i := from; i <= to; i++ {
					a, errA := q.iterValues(withSeed(args[0], seed), strconv.Itoa(i))
					b, errB := q.iterValues(withSeed(args[1], seed), strconv.Itoa(i))
					if errA != nil || errB != nil || len(a) != 1 || len(b) != 1 {
						continue
					}
					gap, pairs = max(gap, math.Abs(a[0]-b[0])), pairs+1
				}
			}
			if pairs == 0 {
				return value{}, fmt.Errorf("igap: no seed and iterate both have")
			}
			return value{v: gap, kind: one, dec: -1}, nil
		case "irange":
			// iterations.csv's column over iterates from-to (of one seed,
			// or of every run): the least and the greatest.
			if len(args) != 3 {
				return value{}, fmt.Errorf("irange takes a configuration with its column and two iterates")
			}
			from, err1 := strconv.Atoi(args[1])
			to, err2 := strconv.Atoi(args[2])
			if err := firstErr(err1, err2); err != nil || from > to {
				return value{}, fmt.Errorf("irange: iterates %s to %s", args[1], args[2])
			}
			var all []float64
			for i := from; i <= to; i++ {
				v, err := q.iterValues(args[0], strconv.Itoa(i))
				if err != nil {
					return value{}, err
				}
				all = append(all, v...)
			}
			return value{v: slices.Min(all), w: slices.Max(all), kind: rangeKind, dec: -1}, nil
		case "td", "toracle":
			// The difference a table's cell prints, or the oracle's mean
			// after it: where the compared side is chosen per seed.
			key := colOracle
			if name == "td" {
				if len(args) != 2 {
					return value{}, fmt.Errorf("td takes a configuration and a column (alike, any, reads, oracle, ref)")
				}
				key = strings.TrimSpace(args[1])
			}
			c, err := q.tableCell(args[0], key)
			if err != nil {
				return value{}, err
			}
			text := c.pre
			if name == "toracle" {
				m := regexp.MustCompile(`\(oracle (\d+\.\d+)\)`).FindStringSubmatch(c.post)
				if m == nil {
					return value{}, fmt.Errorf("the table's oracle cell names no oracle mean")
				}
				text = m[1]
			}
			nums := regexp.MustCompile(`[+-]?\d+\.\d+`).FindAllString(text, -1)
			if len(nums) == 0 {
				return value{}, fmt.Errorf("the table's cell %q prints no difference", text)
			}
			v, _ := strconv.ParseFloat(nums[len(nums)-1], 64)
			return value{v: v, kind: one, dec: 1, diff: name == "td"}, nil
		case "pct":
			// A fraction quoted as a percentage.
			if len(args) != 1 {
				return value{}, fmt.Errorf("pct takes one reference")
			}
			v, err := q.eval(args[0])
			if err != nil {
				return value{}, err
			}
			v.v, v.w = 100*v.v, 100*v.w
			return v, nil
		case "ratio":
			// A over B: references or numbers.
			if len(args) != 2 {
				return value{}, fmt.Errorf("ratio takes two references or numbers")
			}
			var x [2]float64
			for i, a := range args {
				if f, err := strconv.ParseFloat(a, 64); err == nil {
					x[i] = f
					continue
				}
				v, err := q.eval(a)
				if err != nil {
					return value{}, err
				}
				if v.kind == rangeKind {
					return value{}, fmt.Errorf("ratio: %q gives a range", a)
				}
				x[i] = v.v
			}
			if x[1] == 0 {
				return value{}, fmt.Errorf("ratio: %q is 0", args[1])
			}
			return value{v: x[0] / x[1], kind: one, dec: -1}, nil
		case "ci":
			// The 95% Student-t interval of X's mean over its runs, as
			// summary.csv's ci95 columns and the pages' interval column.
			if len(args) != 1 {
				return value{}, fmt.Errorf("ci takes one reference")
			}
			v, err := q.runsOf(args[0])
			if err != nil {
				return value{}, err
			}
			st := Describe(v)
			if st.N < 2 {
				return value{}, fmt.Errorf("ci: %q has %d runs, want at least 2", args[0], st.N)
			}
			return value{v: st.Lo, w: st.Hi, kind: rangeKind, dec: 1}, nil
		case "sd":
			if len(args) != 1 {
				return value{}, fmt.Errorf("sd takes one reference")
			}
			v, err := q.eval(args[0])
			if err != nil {
				return value{}, err
			}
			if v.kind != pairKind {
				return value{}, fmt.Errorf("sd: %q gives no mean ± sd", args[0])
			}
			return value{v: v.w, kind: one, dec: v.dec}, nil
		case "sum":
			// The sum of X's values: its runs', or its records'.
			if len(args) != 1 {
				return value{}, fmt.Errorf("sum takes one reference")
			}
			v, err := q.runsOf(args[0])
			if err != nil {
				return value{}, err
			}
			if len(v) == 0 {
				return value{}, fmt.Errorf("sum: %q has no values", args[0])
			}
			t := 0.0
			for _, x := range v {
				t += x
			}
			return value{v: t, kind: one, dec: -1}, nil
		case "n":
			if len(args) != 1 {
				return value{}, fmt.Errorf("n takes one reference")
			}
			var k int
			if isRecordRef(args[0]) {
				recs, err := q.recordValues(args[0])
				if err != nil {
					return value{}, err
				}
				k = len(recs)
			} else {
				v, err := q.runsOf(args[0])
				if err != nil {
					return value{}, err
				}
				k = len(v)
			}
			return value{v: float64(k), kind: one, dec: 0}, nil
		case "inside":
			// How many of A's values lie within the least and greatest
			// of B's values of the same KEY (where B has two or more).
			if len(args) != 3 || !isRecordRef(args[0]) || !isRecordRef(args[1]) {
				return value{}, fmt.Errorf("inside takes two record references and a field (inside(A, B, iter))")
			}
			a, err := q.recordValues(args[0])
			if err != nil {
				return value{}, err
			}
			b, err := q.recordValues(args[1])
			if err != nil {
				return value{}, err
			}
			type span struct {
				lo, hi float64
				n      int
			}
			by := map[string]span{}
			for _, r := range b {
				sp, ok := by[r.rec[args[2]]]
				if !ok {
					sp = span{lo: r.v, hi: r.v}
				}
				by[r.rec[args[2]]] = span{min(sp.lo, r.v), max(sp.hi, r.v), sp.n + 1}
			}
			k := 0
			for _, r := range a {
				if sp := by[r.rec[args[2]]]; sp.n >= 2 && r.v >= sp.lo && r.v <= sp.hi {
					k++
				}
			}
			return value{v: float64(k), kind: one, dec: 0}, nil
		}
		return value{}, fmt.Errorf("no function %q (p, tp, holm, td, toracle, range, min, max, pct, ratio, sd, n, sum, median, inside, ifirst, isince, ipeak, under, over, within...)", name)
	}
	if terms := strings.Split(ref, " - "); len(terms) > 1 {
		// A difference of means (over runs), or of a mean and a number.
		var d float64
		for i, term := range terms {
			x, err := strconv.ParseFloat(strings.TrimSpace(term), 64)
			if _, _, isCall := call(strings.TrimSpace(term)); isCall {
				v, err := q.eval(term)
				if err != nil {
					return value{}, err
				}
				x = v.v
			} else if err != nil {
				v, err := q.runsOf(term)
				if err != nil {
					return value{}, err
				}
				x = Describe(v).Mean
			}
			if i == 0 {
				d = x
			} else {
				d -= x
			}
		}
		return value{v: d, kind: one, dec: 1, diff: true}, nil
	}
	return q.selection(ref)
}

// call splits "name(a, b)".
func call(ref string) (string, []string, bool) {
	i := strings.IndexByte(ref, '(')
	if i <= 0 || !strings.HasSuffix(ref, ")") || strings.ContainsAny(ref[:i], "/ []") {
		return "", nil, false
	}
	// The parenthesis opened after the name closes at the end: "f(a) - g(b)" is no call.
	depth := 0
	for j := i; j < len(ref); j++ {
		switch ref[j] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 && j != len(ref)-1 {
				return "", nil, false
			}
		}
	}
	var args []string
	for _, a := range splitTop(ref[i+1:len(ref)-1], ',') {
		args = append(args, strings.TrimSpace(a))
	}
	return ref[:i], args, true
}

// selector is a parsed configuration reference.
type selector struct {
	archive, sweep, method, model, size, col string
	seed                                     string
}

var selectorRE = regexp.MustCompile(`^(?:archive:)?([\w.+-]+)/([\w/.*-]+?)(?:@([\w:,.]+))?(?:~(\d+))?(?:#(\d+))?(?:\.(\w+))?$`)

func parseSelector(ref string) (selector, error) {
	m := selectorRE.FindStringSubmatch(strings.TrimSpace(ref))
	if m == nil {
		return selector{}, fmt.Errorf("want SWEEP/METHOD[@W][~N][#SEED][.COL]")
	}
	s := selector{sweep: m[1], method: m[2], model: m[3], size: m[4], seed: m[5], col: m[6]}
	if strings.HasPrefix(strings.TrimSpace(ref), "archive:") {
		s.archive, s.sweep = m[1], ""
	}
	if s.model != "" && !strings.Contains(s.model, ":") {
		s.model = "mlp:" + s.model + "," + s.model
	}
	if s.col == "" {
		s.col = "test_acc"
	}
	return s, nil
}

func (s selector) matches(r map[string]string) bool {
	return (s.sweep == "" || r["sweep"] == s.sweep) && methodMatches(s.method, r["method"]) &&
		(s.model == "" || r["model"] == s.model) && (s.size == "" || r["train_size"] == s.size)
}

// methodMatches tells whether a selector's method names a row's: "*"
// any, "X*" any that begins with X (an archived row's method with its
// settings after a space).
func methodMatches(sel, method string) bool {
	if p, ok := strings.CutSuffix(sel, "*"); ok {
		return strings.HasPrefix(method, p)
	}
	return sel == method
}

// summaryRow finds a selector's one summary row and its experiment.
func (q *Quoted) summaryRow(s selector) (map[string]string, Results, error) {
	var hits []map[string]string
	var in Results
	for _, r := range q.all {
		if r.Summary == nil {
			continue
		}
		for _, x := range r.Summary.Rows {
			if s.matches(x) {
				hits = append(hits, x)
				in = r
			}
		}
	}
	switch len(hits) {
	case 0:
		return nil, in, fmt.Errorf("no configuration of a summary.csv is sweep %s, method %s%s", s.sweep, s.method, s.qualifiers())
	case 1:
		return hits[0], in, nil
	}
	return nil, in, fmt.Errorf("%d configurations are sweep %s, method %s%s (name the model with @W or the size with ~N)", len(hits), s.sweep, s.method, s.qualifiers())
}

func (s selector) qualifiers() string {
	out := ""
	if s.model != "" {
		out += ", model " + s.model
	}
	if s.size != "" {
		out += ", train_size " + s.size
	}
	return out
}

// runRows are a selector's rows of runs.csv (or of an archived per-run
// CSV): for a configuration of summary.csv, its runs by configuration
// hash.
func (q *Quoted) runRows(s selector) ([]map[string]string, error) {
	if strings.Contains(s.sweep, "+") {
		// A choice per seed among sweeps, as an experiment's [[choice]]
		// makes it.
		sweeps := strings.Split(s.sweep, "+")
		for _, r := range q.all {
			if r.Runs == nil || !slices.ContainsFunc(r.Runs.Rows, func(x map[string]string) bool { return x["sweep"] == sweeps[0] }) {
				continue
			}
			if q.chosen == nil {
				q.chosen = map[string][]Chosen{}
			}
			if _, ok := q.chosen[s.sweep]; !ok {
				q.chosen[s.sweep] = Choice{Sweeps: sweeps}.Choose(r.Runs)
			}
			var hits []Chosen
			for _, ch := range q.chosen[s.sweep] {
				if methodMatches(s.method, ch.Method) && (s.model == "" || ch.Model == s.model) && (s.size == "" || ch.TrainSize == s.size) {
					hits = append(hits, ch)
				}
			}
			if len(hits) != 1 {
				return nil, fmt.Errorf("%d configurations of the choice among %s are method %s%s", len(hits), strings.Join(sweeps, ", "), s.method, s.qualifiers())
			}
			return hits[0].Runs, nil
		}
		return nil, fmt.Errorf("no experiment has runs of sweep %s", sweeps[0])
	}
	if s.archive != "" {
		t, err := ReadCSV(filepath.Join(q.docs, "results", "archive", s.archive+".csv"))
		if err != nil {
			return nil, err
		}
		var out []map[string]string
		for _, x := range t.Rows {
			if s.matches(x) {
				out = append(out, x)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no row of archive/%s.csv is method %s%s", s.archive, s.method, s.qualifiers())
		}
		return out, nil
	}
	row, r, err := q.summaryRow(s)
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, x := range r.Runs.Rows {
		if x["sweep"] == row["sweep"] && x["config_hash"] == row["config_hash"] {
			out = append(out, x)
		}
	}
	return out, nil
}

// runsOf is a configuration's values of its column over its runs.
func (q *Quoted) runsOf(ref string) ([]float64, error) {
	if isRecordRef(ref) {
		recs, err := q.recordValues(ref)
		var out []float64
		for _, r := range recs {
			out = append(out, r.v)
		}
		return out, err
	}
	s, err := parseSelector(ref)
	if err != nil {
		return nil, err
	}
	rows, err := q.runRows(s)
	if err != nil {
		return nil, err
	}
	var out []float64
	for _, x := range rows {
		v, err := strconv.ParseFloat(x[s.col], 64)
		if err != nil {
			return nil, fmt.Errorf("column %s: %q is no number", s.col, x[s.col])
		}
		if s.seed == "" || x["seed"] == s.seed {
			out = append(out, v)
		}
	}
	return out, nil
}

// selection is a configuration's mean ± sd (or mean) of a column, or
// one seed's value.
func (q *Quoted) selection(ref string) (value, error) {
	if isRecordRef(ref) {
		recs, err := q.recordValues(ref)
		if err != nil {
			return value{}, err
		}
		var v []float64
		for _, r := range recs {
			v = append(v, r.v)
		}
		m := recordRE.FindStringSubmatch(strings.TrimSpace(ref))
		dec := -1
		if strings.HasPrefix(m[4], "test_") || strings.HasPrefix(m[4], "val_") {
			dec = 1
		}
		if len(v) == 1 {
			return value{v: v[0], kind: one, dec: dec}, nil
		}
		st := Describe(v)
		return value{v: st.Mean, w: st.SD, kind: pairKind, dec: dec}, nil
	}
	s, err := parseSelector(ref)
	if err != nil {
		return value{}, err
	}
	acc := strings.HasPrefix(s.col, "test_") || strings.HasPrefix(s.col, "val_")
	dec := -1
	if acc {
		dec = 1
	}
	if s.seed != "" {
		v, err := q.runsOf(ref)
		if err != nil {
			return value{}, err
		}
		if len(v) != 1 {
			return value{}, fmt.Errorf("%d runs of seed %s", len(v), s.seed)
		}
		return value{v: v[0], kind: one, dec: dec}, nil
	}
	var row map[string]string
	if s.archive == "" && !strings.Contains(s.sweep, "+") {
		if row, _, err = q.summaryRow(s); err != nil {
			return value{}, err
		}
	} else {
		rows, err := q.runRows(s)
		if err != nil {
			return value{}, err
		}
		if _, perRun := rows[0]["seed"]; perRun || s.archive == "" {
			v, err := q.runsOf(ref)
			if err != nil {
				return value{}, err
			}
			st := Describe(v)
			return value{v: st.Mean, w: st.SD, kind: pairKind, dec: dec}, nil
		}
		if len(rows) != 1 {
			return value{}, fmt.Errorf("%d rows of archive/%s.csv are method %s%s", len(rows), s.archive, s.method, s.qualifiers())
		}
		row = rows[0]
	}
	mean, err := strconv.ParseFloat(row[s.col+"_mean"], 64)
	if err != nil {
		return value{}, fmt.Errorf("no column %s_mean", s.col)
	}
	if sd, err := strconv.ParseFloat(row[s.col+"_sd"], 64); err == nil {
		return value{v: mean, w: sd, kind: pairKind, dec: dec}, nil
	}
	return value{v: mean, kind: one, dec: dec}, nil
}

// withSeed is a selector with its seed set.
func withSeed(ref string, seed int) string {
	s := strings.TrimSpace(ref)
	col := ""
	if i := strings.LastIndexByte(s, '.'); i > 0 {
		s, col = s[:i], s[i:]
	}
	return s + "#" + strconv.Itoa(seed) + col
}

// iterLevel reads the arguments of ifirst and isince (A.COL, LEVEL):
// the iterates of A's curve, the means over its runs there, and the
// level.
func (q *Quoted) iterLevel(name string, args []string) (its []int, means []float64, level float64, err error) {
	if len(args) != 2 {
		return nil, nil, 0, fmt.Errorf("%s takes a configuration with its column and a level", name)
	}
	if level, err = strconv.ParseFloat(args[1], 64); err != nil {
		return nil, nil, 0, fmt.Errorf("%s: level %q is no number", name, args[1])
	}
	its, means, err = q.iterMeans(args[0])
	return its, means, level, err
}

// iterMeans is the mean over a configuration's runs (or its seed
// #SEED's value) of an iterations.csv column at each iterate that has
// one, in iterate order.
func (q *Quoted) iterMeans(ref string) ([]int, []float64, error) {
	s, err := parseSelector(ref)
	if err != nil {
		return nil, nil, err
	}
	row, r, err := q.summaryRow(s)
	if err != nil {
		return nil, nil, err
	}
	if r.Iterations == nil {
		return nil, nil, fmt.Errorf("experiment %s has no iterations.csv", r.File.Name)
	}
	var its []int
	for _, x := range r.Iterations.Rows {
		if x["sweep"] != row["sweep"] || x["config_hash"] != row["config_hash"] {
			continue
		}
		if i, err := strconv.Atoi(x["iter"]); err == nil && !slices.Contains(its, i) {
			its = append(its, i)
		}
	}
	slices.Sort(its)
	var at []int
	var means []float64
	for _, i := range its {
		v, err := q.iterValues(ref, strconv.Itoa(i))
		if err != nil {
			if strings.HasPrefix(err.Error(), "no row") {
				continue // not recorded at this iterate
			}
			return nil, nil, err
		}
		at, means = append(at, i), append(means, Describe(v).Mean)
	}
	if len(at) == 0 {
		return nil, nil, fmt.Errorf("no row of iterations.csv for %s", ref)
	}
	return at, means, nil
}

// iterValues are a configuration's (or one seed's) values of an
// iterations.csv column at iterate at ("sel": each run's selected one).
func (q *Quoted) iterValues(ref, at string) ([]float64, error) {
	s, err := parseSelector(ref)
	if err != nil {
		return nil, err
	}
	if s.col == "test_acc" {
		return nil, fmt.Errorf("name iterations.csv's column (.search_val_worst, .conflict_weight_pct, .keep_high_pct, .keep_grad_norm...)")
	}
	row, r, err := q.summaryRow(s)
	if err != nil {
		return nil, err
	}
	if r.Iterations == nil {
		return nil, fmt.Errorf("experiment %s has no iterations.csv", r.File.Name)
	}
	var out []float64
	for _, x := range r.Iterations.Rows {
		if x["sweep"] != row["sweep"] || x["config_hash"] != row["config_hash"] || (s.seed != "" && x["seed"] != s.seed) {
			continue
		}
		if (at == "sel" && x["selected"] != "yes") || (at != "sel" && x["iter"] != at) {
			continue
		}
		if x[s.col] == "" {
			continue // not recorded (a run whose directory was gone when the column came)
		}
		v, err := strconv.ParseFloat(x[s.col], 64)
		if err != nil {
			return nil, fmt.Errorf("iterations.csv's %s at iterate %s of seed %s: %q is no number", s.col, at, x["seed"], x[s.col])
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no row of iterations.csv at iterate %s", at)
	}
	return out, nil
}

// tableCell is a configuration's cell of its experiment table's
// comparison column key.
func (q *Quoted) tableCell(ref, key string) (cell, error) {
	s, err := parseSelector(ref)
	if err != nil {
		return cell{}, err
	}
	row, r, err := q.summaryRow(s)
	if err != nil {
		return cell{}, err
	}
	cmp, ok := q.cmp[r.File.Name]
	if !ok {
		cmp.keys, _, cmp.cells = comparisons(r)
		if q.cmp == nil {
			q.cmp = map[string]tableCmp{}
		}
		q.cmp[r.File.Name] = cmp
	}
	keys, cells := cmp.keys, cmp.cells
	for i, x := range r.Summary.Rows {
		if !sameRow(x, row) {
			continue
		}
		for j, k := range keys {
			if k == key {
				return cells[i][j], nil
			}
		}
		return cell{}, fmt.Errorf("experiment %s's table has no column %q (%s)", r.File.Name, key, strings.Join(keys, ", "))
	}
	return cell{}, fmt.Errorf("row not found")
}

func sameRow(a, b map[string]string) bool {
	return a["sweep"] == b["sweep"] && a["config_hash"] == b["config_hash"] && a["method"] == b["method"]
}

// recordRE is a reference to records: the rows of an archived CSV, or
// the records of a printout, chosen by their fields.
var recordRE = regexp.MustCompile(`^(log|archive|bench|time|csv):([^\[\]\s]+)\[([^\]]*)\](?:\.([\w/-]+))?$`)

func isRecordRef(ref string) bool { return recordRE.MatchString(strings.TrimSpace(ref)) }

// record is one value of a record reference, with its record.
type record struct {
	v   float64
	rec map[string]string
}

// recordValues are a record reference's values, in its file's order:
// the field of each record that passes every filter K=V (V a value, or
// FROM-TO for a number from FROM to TO). A record without the field, or
// with it empty, gives no value.
func (q *Quoted) recordValues(ref string) ([]record, error) {
	m := recordRE.FindStringSubmatch(strings.TrimSpace(ref))
	if m == nil {
		return nil, fmt.Errorf("want archive:FILE[K=V,...][.COL], or log:, bench:, time: or csv:FILE[K=V,...].KEY")
	}
	kind, file, filters, field := m[1], m[2], m[3], m[4]
	recs, err := q.recordsOf(kind, file)
	if err != nil {
		return nil, err
	}
	if field == "" {
		if kind != "archive" {
			return nil, fmt.Errorf("name the record's key (%s:%s[%s].KEY)", kind, file, filters)
		}
		field = "test_acc"
	}
	type filter struct {
		key, val string
		lo, hi   float64
		span     bool
	}
	var fs []filter
	for _, f := range splitFilters(filters) {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("filter %q: want KEY=VALUE or KEY=FROM-TO", f)
		}
		x := filter{key: strings.TrimSpace(k), val: strings.TrimSpace(v)}
		if from, to, ok := strings.Cut(x.val, "-"); ok {
			lo, err1 := strconv.ParseFloat(from, 64)
			hi, err2 := strconv.ParseFloat(to, 64)
			x.lo, x.hi, x.span = lo, hi, err1 == nil && err2 == nil
		}
		fs = append(fs, x)
	}
	var out []record
	for _, r := range recs {
		pass := true
		for _, f := range fs {
			c, ok := r[f.key]
			if x, err := strconv.ParseFloat(c, 64); f.span && err == nil {
				ok = ok && x >= f.lo && x <= f.hi
			} else {
				ok = ok && c == f.val
			}
			pass = pass && ok
		}
		if !pass || r[field] == "" {
			continue
		}
		v, err := strconv.ParseFloat(r[field], 64)
		if err != nil {
			return nil, fmt.Errorf("%s's %s: %q is no number", file, field, r[field])
		}
		out = append(out, record{v, r})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no record of %s passes [%s] with a value of %s", file, filters, field)
	}
	return out, nil
}

// splitFilters splits a record reference's filters at the commas that
// begin a new K=V: a value may hold a comma ("run=full batch, before").
func splitFilters(filters string) []string {
	var out []string
	for _, f := range strings.Split(filters, ",") {
		if len(out) > 0 && !filterStart.MatchString(f) {
			out[len(out)-1] += "," + f
			continue
		}
		out = append(out, f)
	}
	return out
}

var filterStart = regexp.MustCompile(`^\s*[\w-]+=`)

// recordsOf reads an archived CSV's rows (docs/results/archive/FILE.csv),
// a committed CSV's (docs/FILE) or a printout's records (docs/FILE), once.
func (q *Quoted) recordsOf(kind, file string) ([]map[string]string, error) {
	key := kind + ":" + file
	if recs, ok := q.files[key]; ok {
		return recs, nil
	}
	var recs []map[string]string
	if kind == "archive" {
		t, err := ReadCSV(filepath.Join(q.docs, "results", "archive", file+".csv"))
		if err != nil {
			return nil, err
		}
		recs = t.Rows
	} else if kind == "csv" {
		t, err := ReadCSV(filepath.Join(q.docs, filepath.FromSlash(file)))
		if err != nil {
			return nil, err
		}
		recs = t.Rows
	} else {
		b, err := os.ReadFile(filepath.Join(q.docs, filepath.FromSlash(file)))
		if err != nil {
			return nil, fmt.Errorf("printout %s: %w", file, err)
		}
		switch kind {
		case "bench":
			recs = benchRecords(string(b))
		case "time":
			recs = timeRecords(string(b))
		default:
			recs = printoutRecords(string(b))
		}
	}
	if q.files == nil {
		q.files = map[string][]map[string]string{}
	}
	q.files[key] = recs
	return recs, nil
}

var printoutLine = regexp.MustCompile(`^\w+ (\{.*\})\s*$`)

// printoutRecords are a printout's records: its lines "TAG {json}", a
// word and a JSON object, each with the object's numbers, strings and
// booleans as fields (numbers as written). Other lines, and a line
// whose object does not parse, are no records.
func printoutRecords(text string) []map[string]string {
	var out []map[string]string
	for _, l := range strings.Split(text, "\n") {
		m := printoutLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		d := json.NewDecoder(strings.NewReader(m[1]))
		d.UseNumber()
		var obj map[string]any
		if d.Decode(&obj) != nil {
			continue
		}
		r := map[string]string{}
		for k, v := range obj {
			switch v := v.(type) {
			case json.Number:
				r[k] = v.String()
			case string:
				r[k] = v
			case bool:
				r[k] = strconv.FormatBool(v)
			}
		}
		out = append(out, r)
	}
	return out
}

var (
	benchLine  = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+(\d+)\s+(.*)$`)
	uptimeLine = regexp.MustCompile(`load average: ([\d.]+), ([\d.]+), ([\d.]+)\s*$`)
)

// benchRecords are the records of a Go benchmark printout: each result
// line, with the benchmark's name (without "Benchmark" and the
// GOMAXPROCS suffix "-N") as name, its iterations as n and each metric
// by its unit (ns/op, B/op, allocs/op, inner-step/sgemm-paired...); and
// each line of uptime's, with its load averages as load1, load5 and
// load15. Other lines are no records.
func benchRecords(text string) []map[string]string {
	var out []map[string]string
	for _, l := range strings.Split(text, "\n") {
		if m := uptimeLine.FindStringSubmatch(l); m != nil {
			out = append(out, map[string]string{"load1": m[1], "load5": m[2], "load15": m[3]})
			continue
		}
		m := benchLine.FindStringSubmatch(strings.TrimRight(l, " \t\r"))
		if m == nil {
			continue
		}
		r := map[string]string{"name": m[1], "n": m[2]}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			r[f[i+1]] = f[i]
		}
		out = append(out, r)
	}
	return out
}

var (
	timeField = regexp.MustCompile(`^\s*(.+?): (.*)$`)
	clockTime = regexp.MustCompile(`^(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$`)
	notKey    = regexp.MustCompile(`[^a-z0-9]+`)
)

// timeRecords are the runs of a /usr/bin/time -v printout: a line
// "== TITLE" begins a run (run=TITLE), as does a second "Command being
// timed" in one run. Each "Label: value" line is a field, its label in
// lower case with every run of other characters an underscore
// ("Maximum resident set size (kbytes)": maximum_resident_set_size_kbytes),
// and a clock time ([h:]m:ss) in seconds. Lines beginning "#" are
// comments.
func timeRecords(text string) []map[string]string {
	var out []map[string]string
	var cur map[string]string
	begin := func(r map[string]string) {
		cur = r
		out = append(out, cur)
	}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if t, ok := strings.CutPrefix(l, "== "); ok {
			begin(map[string]string{"run": strings.TrimSpace(t)})
			continue
		}
		m := timeField.FindStringSubmatch(l)
		if strings.HasPrefix(l, "#") || m == nil {
			continue
		}
		k := strings.Trim(notKey.ReplaceAllString(strings.ToLower(m[1]), "_"), "_")
		if cur == nil || (k == "command_being_timed" && cur[k] != "") {
			begin(map[string]string{})
		}
		v := strings.TrimSpace(m[2])
		if c := clockTime.FindStringSubmatch(v); c != nil {
			h, _ := strconv.ParseFloat("0"+c[1], 64)
			mi, _ := strconv.ParseFloat(c[2], 64)
			sec, _ := strconv.ParseFloat(c[3], 64)
			v = strconv.FormatFloat(3600*h+60*mi+sec, 'f', -1, 64)
		}
		cur[k] = v
	}
	return out
}
