// Command sidebyside puts the MAPLE code's per-iteration figures and
// maple's maple-reference preset on the same data side by side: one CSV
// row per (source, seed, outer iteration) and a figure of the reference
// protocol's figure and the last retraining step's test accuracy over the
// iterations, a line per source and seed.
//
// From the printouts and run directories (docs/SIDE-BY-SIDE.md, "Side by side with the
// authors' code"):
//
//	go run ./docs/scripts/sidebyside -authors 1=LOG1,2=LOG2 -maple 1=RUNDIR1,2=RUNDIR2 \
//	  -csv docs/results/archive/sidebyside-irmv1.csv -out docs/results/archive/figures/sidebyside-irmv1
//
// From the committed CSV alone: go run ./docs/scripts/sidebyside -from CSV -out DIR.
//
// The code's printout is read from the lines "INSTR {json}" that the
// instrumented run printed once per outer iteration (kept, kept_groups,
// ref_test, ref_train, last_test, last_train, time); maple's from the
// run's metrics.jsonl (keep fraction and group fractions of the drawn
// mask, and the per-iterate evaluation's reference protocol and last
// step).
package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/maple-ood/maple/runs"
)

// row is one outer iteration of one source and seed.
type row struct {
	Source     string // "code" or "maple"
	Seed       int
	Iter       int
	Kept       int
	KeptGroups [4]int  // groups 2*label + colour
	RefTest    float64 // reference protocol; NaN: no step passed the training-accuracy filter
	RefTrain   float64
	LastTest   float64
	LastTrain  float64
	Seconds    float64 // cumulative
}

var header = []string{"source", "seed", "iter", "kept", "kept_y0c0", "kept_y0c1", "kept_y1c0", "kept_y1c1",
	"ref_test", "ref_train", "last_test", "last_train", "seconds"}

func (r row) record() []string {
	f := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64) // exact: -from reproduces every figure
	}
	out := []string{r.Source, strconv.Itoa(r.Seed), strconv.Itoa(r.Iter), strconv.Itoa(r.Kept)}
	for _, k := range r.KeptGroups {
		out = append(out, strconv.Itoa(k))
	}
	return append(out, f(r.RefTest), f(r.RefTrain), f(r.LastTest), f(r.LastTrain), strconv.FormatFloat(r.Seconds, 'f', 0, 64))
}

func parseRecord(rec []string) (row, error) {
	if len(rec) != len(header) {
		return row{}, fmt.Errorf("%d fields, want %d", len(rec), len(header))
	}
	num := func(s string) (float64, error) {
		if s == "" {
			return math.NaN(), nil
		}
		return strconv.ParseFloat(s, 64)
	}
	r := row{Source: rec[0]}
	ints := []*int{&r.Seed, &r.Iter, &r.Kept, &r.KeptGroups[0], &r.KeptGroups[1], &r.KeptGroups[2], &r.KeptGroups[3]}
	for i, p := range ints {
		v, err := strconv.Atoi(rec[i+1])
		if err != nil {
			return row{}, fmt.Errorf("%s: %w", header[i+1], err)
		}
		*p = v
	}
	for i, p := range []*float64{&r.RefTest, &r.RefTrain, &r.LastTest, &r.LastTrain, &r.Seconds} {
		v, err := num(rec[8+i])
		if err != nil {
			return row{}, fmt.Errorf("%s: %w", header[8+i], err)
		}
		*p = v
	}
	return r, nil
}

// pairs splits "1=a,2=b" into seed -> path.
func pairs(s string) (map[int]string, error) {
	out := map[int]string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		k, v, ok := strings.Cut(p, "=")
		seed, err := strconv.Atoi(k)
		if !ok || err != nil {
			return nil, fmt.Errorf("%q: want SEED=PATH", p)
		}
		out[seed] = v
	}
	return out, nil
}

func codeRows(seed int, path string) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []row
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "INSTR ")
		if !ok {
			continue
		}
		var v struct {
			Iter       int     `json:"iter"`
			Kept       int     `json:"kept"`
			KeptGroups []int   `json:"kept_groups"`
			Ref        float64 `json:"ref_test"`
			RefTr      float64 `json:"ref_train"`
			LastTest   float64 `json:"last_test"`
			LastTrain  float64 `json:"last_train"`
			Time       float64 `json:"time"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r := row{Source: "code", Seed: seed, Iter: v.Iter, Kept: v.Kept, RefTest: v.Ref, RefTrain: v.RefTr,
			LastTest: v.LastTest, LastTrain: v.LastTrain, Seconds: v.Time}
		if v.Ref == 0 { // the code prints 0 when no step passed the filter
			r.RefTest, r.RefTrain = math.NaN(), math.NaN()
		}
		copy(r.KeptGroups[:], v.KeptGroups)
		out = append(out, r)
	}
	return out, sc.Err()
}

func mapleRows(seed int, dir string) ([]row, error) {
	snaps, err := runs.ReadMetrics(dir)
	if err != nil {
		return nil, err
	}
	cfg, err := runs.ReadConfig(dir)
	if err != nil {
		return nil, err
	}
	// The training set's size, from a keep budget and its fraction.
	if cfg.Settings.Keep <= 0 || cfg.Settings.Keep != cfg.Settings.Keep0 {
		return nil, fmt.Errorf("%s: keep %g from keep0 %g: want a constant keep fraction (the preset's)", dir, cfg.Settings.Keep, cfg.Settings.Keep0)
	}
	var out []row
	for _, s := range snaps {
		kept := s.KeepFrac * s.KeepSize / cfg.Settings.Keep
		r := row{Source: "maple", Seed: seed, Iter: s.Iter, Kept: int(math.Round(kept)), Seconds: s.Elapsed,
			RefTest: math.NaN(), RefTrain: math.NaN(), LastTest: math.NaN(), LastTrain: math.NaN()}
		for g := 0; g < 4 && g < len(s.GroupFrac); g++ {
			r.KeptGroups[g] = int(math.Round(s.GroupFrac[g] * kept))
		}
		if e := s.IterEval; e != nil {
			if e.Reference != nil {
				r.RefTest, r.RefTrain = e.Reference.TestAcc, e.Reference.TrainAcc
			}
			if e.Last != nil {
				r.LastTest, r.LastTrain = e.Last.TestAcc, e.Last.TrainAcc
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func main() {
	authors := flag.String("authors", "", "SEED=LOG,...: the code's printouts")
	maple := flag.String("maple", "", "SEED=RUNDIR,...: maple's run directories")
	from := flag.String("from", "", "read the rows from this CSV instead")
	csvOut := flag.String("csv", "", "write the rows to this CSV")
	out := flag.String("out", "", "write the figure (PNG and SVG) into this directory")
	maxIter := flag.Int("iters", 0, "draw and tabulate only the first N outer iterations (0: all)")
	md := flag.Bool("markdown", false, "print a markdown table: per seed and iteration, the two sources' figures side by side")
	flag.Parse()
	if err := run(*authors, *maple, *from, *csvOut, *out, *maxIter, *md); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

func run(authors, maple, from, csvOut, out string, maxIter int, md bool) error {
	var rows []row
	if from != "" {
		f, err := os.Open(from)
		if err != nil {
			return err
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			return fmt.Errorf("%s: %w", from, err)
		}
		for i, rec := range recs[1:] {
			r, err := parseRecord(rec)
			if err != nil {
				return fmt.Errorf("%s: line %d: %w", from, i+2, err)
			}
			rows = append(rows, r)
		}
	}
	a, err := pairs(authors)
	if err != nil {
		return fmt.Errorf("-authors: %w", err)
	}
	m, err := pairs(maple)
	if err != nil {
		return fmt.Errorf("-maple: %w", err)
	}
	for seed, p := range a {
		rs, err := codeRows(seed, p)
		if err != nil {
			return err
		}
		rows = append(rows, rs...)
	}
	for seed, p := range m {
		rs, err := mapleRows(seed, p)
		if err != nil {
			return err
		}
		rows = append(rows, rs...)
	}
	if maxIter > 0 {
		rows = slices.DeleteFunc(rows, func(r row) bool { return r.Iter > maxIter })
	}
	if len(rows) == 0 {
		return fmt.Errorf("no rows: give -from, -authors or -maple")
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Seed != b.Seed {
			return a.Seed < b.Seed
		}
		return a.Iter < b.Iter
	})
	if csvOut != "" {
		f, err := os.Create(csvOut)
		if err != nil {
			return err
		}
		w := csv.NewWriter(f)
		w.Write(header)
		for _, r := range rows {
			w.Write(r.record())
		}
		w.Flush()
		if err := w.Error(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if md {
		markdown(os.Stdout, rows)
		fmt.Println()
		seedTable(os.Stdout, rows)
		summary(os.Stdout, rows)
	}
	if out == "" {
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, fig := range []struct {
		file, title string
		y           func(row) float64
	}{
		{"reference-protocol", "reference protocol: best test accuracy over steps with training accuracy > 0.68 (oracle)", func(r row) float64 { return r.RefTest }},
		{"last-step", "last retraining step: test accuracy (no selection)", func(r row) float64 { return r.LastTest }},
	} {
		if err := drawFigure(rows, fig.title, fig.y, filepath.Join(out, fig.file)); err != nil {
			return err
		}
	}
	return nil
}

// drawFigure plots y per source and seed over the iterations; a NaN (no step
// passed the filter) breaks the line and is marked at 0 by a cross.
func drawFigure(rows []row, title string, y func(row) float64, base string) error {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, "outer iteration", "test accuracy"
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, false
	colours := map[string]color.Color{"code": color.RGBA{214, 39, 40, 255}, "maple": color.RGBA{31, 119, 180, 255}}
	dashes := [][]vg.Length{nil, {vg.Points(5), vg.Points(3)}, {vg.Points(1.5), vg.Points(2)}}
	type key struct {
		src  string
		seed int
	}
	var keys []key
	lines := map[key]plotter.XYs{}
	for _, r := range rows {
		k := key{r.Source, r.Seed}
		if _, ok := lines[k]; !ok {
			keys = append(keys, k)
		}
		v := y(r)
		lines[k] = append(lines[k], plotter.XY{X: float64(r.Iter), Y: v})
	}
	seeds := map[int]int{}
	for _, k := range keys {
		if _, ok := seeds[k.seed]; !ok {
			seeds[k.seed] = len(seeds)
		}
	}
	for _, k := range keys {
		xy := lines[k]
		var seg plotter.XYs
		var miss plotter.XYs
		first := true
		flush := func() error {
			if len(seg) == 0 {
				return nil
			}
			l, err := plotter.NewLine(seg)
			if err != nil {
				return err
			}
			l.Color, l.Width, l.Dashes = colours[k.src], vg.Points(1.5), dashes[seeds[k.seed]%len(dashes)]
			pts, err := plotter.NewScatter(seg)
			if err != nil {
				return err
			}
			pts.Color, pts.Radius = colours[k.src], vg.Points(1.8)
			p.Add(l, pts)
			if first {
				p.Legend.Add(fmt.Sprintf("%s, seed %d", map[string]string{"code": "MAPLE code", "maple": "maple preset"}[k.src], k.seed), l)
				first = false
			}
			seg = nil
			return nil
		}
		for _, pt := range xy {
			if math.IsNaN(pt.Y) {
				if err := flush(); err != nil {
					return err
				}
				miss = append(miss, plotter.XY{X: pt.X, Y: 0})
				continue
			}
			seg = append(seg, pt)
		}
		if err := flush(); err != nil {
			return err
		}
		if len(miss) > 0 {
			sc, err := plotter.NewScatter(miss)
			if err != nil {
				return err
			}
			sc.Color = colours[k.src]
			sc.Shape = draw.CrossGlyph{}
			sc.Radius = vg.Points(3)
			p.Add(sc)
		}
	}
	p.Y.Min, p.Y.Max = 0, 1.15
	p.X.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		var ts []plot.Tick
		for i := math.Ceil(min); i <= max; i++ {
			t := plot.Tick{Value: i}
			if int(i)%2 == 0 || max-min < 10 {
				t.Label = strconv.Itoa(int(i))
			}
			ts = append(ts, t)
		}
		return ts
	})
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(8*vg.Inch, 4.5*vg.Inch, base+ext); err != nil {
			return err
		}
	}
	return nil
}

// markdown prints, per seed and iteration, the code's and maple's kept
// count, reference protocol and last-step test accuracy (in %), and per
// seed the best reference figure over the iterations both have.
func markdown(w io.Writer, rows []row) {
	type key struct{ seed, iter int }
	by := map[string]map[key]row{"code": {}, "maple": {}}
	var keys []key
	for _, r := range rows {
		k := key{r.Seed, r.Iter}
		if _, ok := by[r.Source][k]; !ok && r.Source == "code" {
			keys = append(keys, k)
		}
		by[r.Source][k] = r
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].seed != keys[j].seed {
			return keys[i].seed < keys[j].seed
		}
		return keys[i].iter < keys[j].iter
	})
	pct := func(v float64) string {
		if math.IsNaN(v) {
			return "none"
		}
		return fmt.Sprintf("%.1f", 100*v)
	}
	fmt.Fprintln(w, "| seed | iteration | kept: code / maple | reference protocol: code / maple | last step test: code / maple |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	best := map[int][2]float64{}
	for _, k := range keys {
		c, m, ok := by["code"][k], by["maple"][k], true
		if _, ok = by["maple"][k]; !ok {
			continue
		}
		fmt.Fprintf(w, "| %d | %d | %d / %d | %s / %s | %s / %s |\n", k.seed, k.iter, c.Kept, m.Kept, pct(c.RefTest), pct(m.RefTest), pct(c.LastTest), pct(m.LastTest))
		b := best[k.seed]
		if !math.IsNaN(c.RefTest) {
			b[0] = math.Max(b[0], c.RefTest)
		}
		if !math.IsNaN(m.RefTest) {
			b[1] = math.Max(b[1], m.RefTest)
		}
		best[k.seed] = b
	}
	var seeds []int
	for s := range best {
		seeds = append(seeds, s)
	}
	sort.Ints(seeds)
	for _, s := range seeds {
		fmt.Fprintf(w, "\nseed %d, best over these iterations (the reference protocol; oracle selection): code %.1f, maple %.1f\n", s, 100*best[s][0], 100*best[s][1])
	}
}

// seedTable prints, per seed, the table SIDE-BY-SIDE.md gives over the
// iterations: the best reference figure (an oracle selection), the
// reference figure's mean ± sd over iterations 3-N, the last step of
// iteration N, and the last step's mean ± sd over iterations 3-N; code /
// maple in each cell, in %.
func seedTable(w io.Writer, rows []row) {
	by, seeds, n := index(rows)
	pm := func(v []float64) string {
		m, sd := meanSD(v)
		return fmt.Sprintf("%.1f ± %.1f", 100*m, 100*sd)
	}
	fmt.Fprintf(w, "| seed | reference protocol, best over iterations 1-%d (oracle selection): code / maple | mean ± sd over iterations 3-%d: code / maple | last step of iteration %d: code / maple | last step, mean ± sd over iterations 3-%d: code / maple |\n", n, n, n, n)
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, s := range seeds {
		var best, refs, last, lasts [2]string
		for j, src := range []string{"code", "maple"} {
			b := math.NaN()
			var rv, lv []float64
			for i := 1; i <= n; i++ {
				r, ok := by[key{src, s, i}]
				if !ok {
					continue
				}
				if !math.IsNaN(r.RefTest) && !(r.RefTest <= b) {
					b = r.RefTest
				}
				if i >= 3 && !math.IsNaN(r.RefTest) {
					rv = append(rv, r.RefTest)
				}
				if i >= 3 && !math.IsNaN(r.LastTest) {
					lv = append(lv, r.LastTest)
				}
			}
			best[j], refs[j], lasts[j] = fmt.Sprintf("%.1f", 100*b), pm(rv), pm(lv)
			last[j] = fmt.Sprintf("%.1f", 100*by[key{src, s, n}].LastTest)
		}
		fmt.Fprintf(w, "| %d | %s / %s | %s / %s | %s / %s | %s / %s |\n", s, best[0], best[1], refs[0], refs[1], last[0], last[1], lasts[0], lasts[1])
	}
}

// summary prints, per seed, the figures the README compares: the best
// reference figure over the iterations, the mean and sample sd over
// iterations 3..N of the reference figure and of the last step's test
// accuracy, the last step of iteration N; then how many of maple's
// points from iteration 2 on fall inside the range of the code's seeds.
func summary(w io.Writer, rows []row) {
	by, seeds, n := index(rows)
	fig := map[string]func(row) float64{"reference protocol": func(r row) float64 { return r.RefTest }, "last step": func(r row) float64 { return r.LastTest }}
	names := []string{"reference protocol", "last step"}
	fmt.Fprintln(w)
	for _, s := range seeds {
		for _, src := range []string{"code", "maple"} {
			best := math.NaN()
			for i := 1; i <= n; i++ {
				if r, ok := by[key{src, s, i}]; ok && !math.IsNaN(r.RefTest) && !(r.RefTest <= best) {
					best = r.RefTest
				}
			}
			line := fmt.Sprintf("seed %d %-5s: best reference %.1f", s, src, 100*best)
			for _, nm := range names {
				var v []float64
				for i := 3; i <= n; i++ {
					if r, ok := by[key{src, s, i}]; ok && !math.IsNaN(fig[nm](r)) {
						v = append(v, fig[nm](r))
					}
				}
				m, sd := meanSD(v)
				line += fmt.Sprintf("; %s over iterations 3-%d %.1f +- %.1f (n=%d)", nm, n, 100*m, 100*sd, len(v))
			}
			if r, ok := by[key{src, s, n}]; ok {
				line += fmt.Sprintf("; last step of iteration %d %.1f", n, 100*r.LastTest)
			}
			fmt.Fprintln(w, line)
		}
	}
	for _, nm := range names {
		inside, total := 0, 0
		for i := 2; i <= n; i++ {
			lo, hi, cnt := math.Inf(1), math.Inf(-1), 0
			for _, s := range seeds {
				if r, ok := by[key{"code", s, i}]; ok && !math.IsNaN(fig[nm](r)) {
					lo, hi, cnt = math.Min(lo, fig[nm](r)), math.Max(hi, fig[nm](r)), cnt+1
				}
			}
			if cnt < 2 {
				continue
			}
			for _, s := range seeds {
				if r, ok := by[key{"maple", s, i}]; ok && !math.IsNaN(fig[nm](r)) {
					total++
					if v := fig[nm](r); v >= lo && v <= hi {
						inside++
					}
				}
			}
		}
		fmt.Fprintf(w, "%s: %d of %d of maple's points (iterations 2-%d) inside the range of the code's seeds\n", nm, inside, total, n)
	}
}

// key names one row: its source (code or maple), seed and iteration.
type key struct {
	src        string
	seed, iter int
}

// index returns rows by key, their seeds in order and the last iteration.
func index(rows []row) (by map[key]row, seeds []int, n int) {
	by = map[key]row{}
	seedSet := map[int]bool{}
	for _, r := range rows {
		by[key{r.Source, r.Seed, r.Iter}] = r
		seedSet[r.Seed] = true
		n = max(n, r.Iter)
	}
	for s := range seedSet {
		seeds = append(seeds, s)
	}
	sort.Ints(seeds)
	return by, seeds, n
}

// meanSD returns the mean of v and its sample sd (NaN for fewer than two).
func meanSD(v []float64) (float64, float64) {
	var m, q float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		q += (x - m) * (x - m)
	}
	if len(v) < 2 {
		return m, math.NaN()
	}
	return m, math.Sqrt(q / float64(len(v)-1))
}
