package experiments

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// phrase is a phrase of a page whose numbers are no result, and why.
type phrase struct{ phrase, why string }

// quotedPages are the hand-written pages (every Markdown page of the
// README and docs but the generated RESULTS.md), each with the sections
// (a "## " or "### " heading of the page; "" for the lead, "*" for the
// whole page) whose figures carry no reference yet, why, and the phrases
// of the page whose numbers are no result. Every "mean ± sd" and p-value of the README and PAPER.md
// carries a reference: the check by value that TestQuotedFiguresExist
// made (a figure equal to any figure of any CSV passed) is subsumed,
// and gone.
var quotedPages = []struct {
	page       string
	pending    []string
	why        string
	notResults []phrase
}{
	{page: "README.md", notResults: []phrase{
		{`about 1 GB`, "the optional installs' size, as apt estimates it"},
		{`target, 2x`, "a target, set before any run"},
		{`keep 0\.3, keep rate 1\.5`, "maple's default keep fraction and keep rate, settings"},
	}},
	{page: "docs/PAPER.md", notResults: []phrase{
		{`Theorem 4\.1`, "the paper's numbering"},
		{`30% subset`, "the preset's keep fraction, a setting"},
		{`(?:instead of|keep\s+rate|--keep-lr\x60\)) 1\.5\b`, "the keep rate, a setting"},
		{`1 for 0\.5`, "IRMv1's outer scale, a setting"},
		{`pass(?:ing|es) 50%`, "a threshold the prose reads the curves by"},
		{`keep rate of 1\.5\s+every score starts 0\.3`, "the keep rate and the keep fraction, settings"},
	}},
	{page: "docs/USAGE.md", notResults: []phrase{
		{`annealing from 90% to 50% kept`, "a search's keep schedule, a setting"},
		{`keeps a 30% subset`, "the default keep fraction, a setting"},
		{`factor 0, 0\.6 or 0\.9`, "the smoothing factors offered"},
		{`lr 1(?:\.0)?,? (?:with )?momentum 0\.9`, "the MAPLE code's recipe, a setting"},
		{`lr 0\.1,\s+momentum 0\.9`, "the shared evaluation's recipe, a setting"},
		{`\(lr 1\.5, gradients`, "the keep rate, a setting"},
		{`0\.5 for irmv1`, "IRMv1's outer scale, a setting"},
		{`keep 0\.3 from the\s+start, keep lr 1\.5`, "the recipe's settings"},
		{`C is chosen from 1, 0\.7, 0\.3, 0\.1`, "DFR's grid, a setting"},
		{`Under 2% the run`, "the threshold below which a reweighting changed too little (train.MinMoved), a setting"},
	}},
	{page: "docs/DATASETS.md", notResults: []phrase{
		{`at most 8 MiB`, "the reader's longest line, a setting"},
		{`accuracy 0\.75 from z_c, \\\|mu_s\\\| 0\.95`, "the construction's parameters"},
		{`p = 0\.9, 0\.8 \(5000 each\), test p = 0\.1`, "the construction's parameters"},
		{`seeded 10%`, "the validation split's share, a setting"},
		{`flip 0\.1/0\.2`, "the IRM paper's construction"},
		{`flip 0\.9`, "the IRM paper's construction"},
		{`0\.999 / 0\.7 / 0\.1`, "the CIFARMNIST construction"},
		{`label noise 0\.1`, "the CIFARMNIST construction"},
		{`in 95% of the training rows`, "the simulated Waterbirds' construction (its published group sizes)"},
		{`2% of the men are blond`, "CelebA's published group sizes"},
		{`about 1\.3 times`, "the memory rule of thumb: its float32 matrix against the files' bytes"},
	}},
	{page: "docs/FORMATS.md", notResults: []phrase{
		{`lines over 1 MB`, "the longest line a reader takes, a setting"},
		{`maple 0\.1`, "a version"},
		{`version 1\.0`, "the .npy format's version"},
		{`95% interval`, "the intervals' level"},
		{`under 2%`, "the threshold below which a reweighting changed too little (train.MinMoved), a setting"},
	}},
	{page: "docs/ARCHITECTURE.md", notResults: []phrase{{`maple 0\.1`, "a version"}}},
	{page: "docs/OWN-EMBEDDINGS.md"}, // a walk-through of commands (TestOwnEmbeddingsPage runs them), no results
	{page: "docs/SIDE-BY-SIDE.md", pending: []string{"## Stage by stage, on identical inputs", "## Before the fixes"},
		why: "the stage table's figures are what TestAuthorsStages and TestAuthorsData measured on the authors' dump (110 MB, not committed); the old preset's figures before the fixes come from an earlier trial whose runs were not kept",
		notResults: []phrase{
			{`within 3 points`, "the targets' margin, set before any run"},
			{`at least 6[58]%?`, "the targets' thresholds"},
			{`momentum 0\.9`, "the code's evaluation recipe, a setting"},
			{`keep 0\.3`, "the keep fraction, a setting"},
			{`at lr 1\.5`, "the keep lr, a setting"},
		}},
	{page: "docs/PERFORMANCE.md", pending: []string{"## Earlier builds"},
		why: "earlier builds' benchmark runs (and bf16 on another machine) whose raw output was not committed; the current ones are docs/results/speed and docs/results/scaling, whose figures carry references",
		notResults: []phrase{
			{`1200000\.125 KiB`, "the file's size in other units, arithmetic"},
			{`keeps 0\.3 at full batch`, "the search's keep fraction, a setting"},
			{`within 1\.3x of that at 20k`, "the target, set before any run"},
			{`1\.2x: met|margin under 1\.2x`, "the target, set before any run"},
			{`lets 2% of the data grow as garbage, at least 32 MiB; it was 5%, at least 64 MiB`, "the collector's settings"},
		}},
	{page: "docs/EMBEDDINGS.md",
		notResults: []phrase{
			{`keep 0\.3, keep rate 1\.5`, "maple's keep fraction and its rate, settings"},
			{`momentum 0\.9`, "the linear head's momentum, a setting"},
			{`keep 0\.5 to keep 0\.3`, "the two keep fractions compared, settings"},
			{`\| wd [\d.]+ `, "the weight decays of the choice's columns, settings"},
		}},
	{page: "docs/MODELS.md", pending: []string{"### Earlier: the outer risks, and g:cnn before its chunks"},
		why: "an earlier build's outer risks and g:cnn run, which gorgonia-speed.csv does not hold",
		notResults: []phrase{
			{`off by 72% on the probe`, "the JVP probe's relative error on TestJVPModes' batch-norm model: a property of gorgonia's op; TestJVPModes checks it, and the refusal the page quotes, against the error it gets"},
			{`keep 0\.3 and`, "the search's keep fraction, a setting"},
		}},
	{page: "docs/results/archive/README.md", pending: []string{"*"}, why: "figures of earlier builds; the archive's CSVs hold many of them"},
}

// notResults are the phrases of every page whose numbers are no result,
// and why.
var notResults = []phrase{
	{`SGD lr 0\.1`, "the shared evaluation's learning rate, a setting"},
	{`95% intervals?`, "the intervals' level"},
	{`within 1(?:\.5)? points?(?: of (?:the|that)\s+oracle| at\s+width| only| for\s+maple)`, "the targets' margins, set before any run"},
}

func newQuoted(t *testing.T, page []phrase) *Quoted {
	t.Helper()
	q, err := NewQuoted(filepath.Join("..", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append(notResults, page...) {
		q.NotResults = append(q.NotResults, regexp.MustCompile(n.phrase))
	}
	return q
}

// guarded returns a page's text with its pending sections blanked
// (newlines kept, so that line numbers stay the page's): "## X" with its
// subsections, "### X" up to the next "## " or "### " heading, "" the
// lead before the first "## " heading, "*" the whole page.
func guarded(text string, pending []string) string {
	lines := strings.SplitAfter(text, "\n")
	if slices.Contains(pending, "*") {
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, text)
	}
	// skip2: in a pending "## " section (its subsections too); skip3:
	// in a pending "### " one.
	skip2, skip3 := len(pending) > 0 && pending[0] == "", false
	for i, l := range lines {
		h := strings.TrimSpace(l)
		if strings.HasPrefix(l, "## ") {
			skip2, skip3 = slices.Contains(pending, h), false
		} else if strings.HasPrefix(l, "### ") {
			skip3 = slices.Contains(pending, h)
		}
		if skip2 || skip3 {
			lines[i] = strings.Repeat(" ", len(strings.TrimSuffix(l, "\n"))) + l[len(strings.TrimSuffix(l, "\n")):]
		}
	}
	return strings.Join(lines, "")
}

// TestQuotedFiguresReferenced checks every result figure of the
// hand-written pages (outside their pending sections and the README's
// generated blocks) against the one CSV cell, or the quantity of the
// CSVs, its reference names, and fails on a figure in a results context
// without one.
func TestQuotedFiguresReferenced(t *testing.T) {
	listed := map[string]bool{}
	for _, pg := range quotedPages {
		listed[pg.page] = true
		if len(pg.pending) > 0 && pg.why == "" {
			t.Errorf("%s: pending sections without why", pg.page)
		}
		q := newQuoted(t, pg.notResults)
		b, err := os.ReadFile(filepath.Join("..", pg.page))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pg.pending {
			if p != "" && p != "*" && !slices.Contains(strings.Split(string(b), "\n"), p) {
				t.Errorf("%s: pending section %q is no heading of the page", pg.page, p)
			}
		}
		probs, checked := q.CheckQuoted(guarded(string(b), pg.pending))
		for _, p := range probs {
			t.Errorf("%s:%d: %s", pg.page, p.Line, p.Msg)
		}
		if len(pg.pending) == 0 && pg.page != "docs/ARCHITECTURE.md" && pg.page != "docs/DATASETS.md" && pg.page != "docs/FORMATS.md" && pg.page != "docs/OWN-EMBEDDINGS.md" && checked < 5 {
			t.Errorf("%s: only %d figures checked against a reference", pg.page, checked)
		}
	}
	// Every hand-written page is listed.
	pages := []string{"README.md"}
	filepath.WalkDir(filepath.Join("..", "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			if rel, _ := filepath.Rel("..", path); rel != filepath.Join("docs", PagePath) {
				pages = append(pages, filepath.ToSlash(rel))
			}
		}
		return err
	})
	for _, p := range pages {
		if !listed[p] {
			t.Errorf("%s is not in quotedPages: give its figures references (or its sections as pending, with why)", p)
		}
	}
}

// TestQuotedFiguresMutated changes one quoted figure of a page at a
// time, in memory, and expects the check to fail: the edits the audit
// made without a test failing, and one of each kind of reference.
func TestQuotedFiguresMutated(t *testing.T) {
	qs := map[string]*Quoted{}
	pages := map[string]string{}
	for _, pg := range quotedPages {
		qs[pg.page] = newQuoted(t, pg.notResults)
		b, err := os.ReadFile(filepath.Join("..", pg.page))
		if err != nil {
			t.Fatal(err)
		}
		pages[pg.page] = guarded(string(b), pg.pending)
	}
	for _, tc := range []struct {
		name, page, from, to string
	}{
		{"per-seed-like widths list (the audit's)", "docs/PAPER.md", "maple/rex scores 70.2, 70.0, 70.0 and", "maple/rex scores 71.2, 71.0, 71.0 and"},
		{"a mean ± sd to group DRO's pair (the audit's)", "docs/PAPER.md", "maple/irmv1 70.0 ± 0.7<!--= cm-maple/maple/irmv1 --> and maple/rex 70.5 ±", "maple/irmv1 70.1 ± 0.7<!--= cm-maple/maple/irmv1 --> and maple/rex 70.5 ±"},
		{"a mean ± sd to the oracle's pair (the audit's)", "docs/PAPER.md", "maple/irmv1 70.0 ± 0.7<!--= cm-maple/maple/irmv1 --> and maple/rex 70.5 ±", "maple/irmv1 71.9 ± 0.5<!--= cm-maple/maple/irmv1 --> and maple/rex 70.5 ±"},
		{"README's points (the audit's)", "README.md", "5.7 points<!--", "7.7 points<!--"},
		{"an sd alone", "README.md", "(68.5 ± 3.3<!--", "(68.5 ± 3.4<!--"},
		{"a difference", "README.md", "(+1.0, p = 0.67", "(+1.1, p = 0.67"},
		{"a difference's sign", "docs/PAPER.md", "-0.8 (p = 0.41<!--", "+0.8 (p = 0.41<!--"},
		{"a p-value", "README.md", "(p = 0.41 and 0.77", "(p = 0.41 and 0.71"},
		{"a Holm p-value", "README.md", "Holm p = 0.098", "Holm p = 0.98"},
		{"a range's end", "README.md", "60.8-66.6<!--", "60.8-67.6<!--"},
		{"a percentage", "docs/PAPER.md", "47-48%<!--", "47-49%<!--"},
		{"an archived figure", "README.md", "(71.2 ± 0.8%<!--", "(71.3 ± 0.8%<!--"},
		{"a chosen-per-seed figure", "docs/PAPER.md", "JTT (70.8 ± 1.3<!--", "JTT (70.8 ± 0.8<!--"},
		{"an interval's end", "README.md", "68.2-71.8<!--", "68.3-71.8<!--"},
		{"a Holm-adjusted p", "README.md", "(Holm p = 0.64<!--", "(Holm p = 0.064<!--"},
		{"a per-seed difference", "docs/PAPER.md", "at seed 3, by 0.5<!--", "at seed 3, by 0.6<!--"},
		{"a range of per-seed values", "docs/PAPER.md", "(0-4%<!--", "(0-5%<!--"},
		{"an archived figure in the table", "docs/PAPER.md", "JTT 70.8 ± 0.8<!--", "JTT 70.9 ± 0.8<!--"},
		{"a figure's reference dropped", "README.md", "(68.5 ± 3.3<!--= abl-defaults/maple/irmv1 -->", "(68.5 ± 3.3"},
		{"a new figure without a reference", "README.md", "(68.5 ± 3.3<!--", "(68.5 ± 3.3, 12.5%<!--"},
		{"a reference to the wrong configuration", "README.md", "<!--= abl-defaults/maple/irmv1 -->", "<!--= abl-defaults-nowd/maple/irmv1 -->"},
		{"a count of a printout", "docs/SIDE-BY-SIDE.md", "The code kept 7608 and 7613<!--", "The code kept 7608 and 7618<!--"},
		{"a percentage of a printout", "docs/SIDE-BY-SIDE.md", "Seed 1 gives 68.8<!--", "Seed 1 gives 68.9<!--"},
		{"a count of the archived side by side", "docs/SIDE-BY-SIDE.md", "Only 9<!--", "Only 11<!--"},
		{"an archived per-seed figure of the side by side", "docs/SIDE-BY-SIDE.md", "irmv1 57.3, 60.3, 65.6<!--", "irmv1 57.3, 61.3, 65.6<!--"},
		{"a printout's range of counts", "docs/SIDE-BY-SIDE.md", "keep 14865-15130<!--", "keep 14865-15100<!--"},
		{"an approximate figure without a reference", "docs/SIDE-BY-SIDE.md", "settles at iteration 3 in every seed.", "settles at iteration 3 in every seed, at ~15000 samples."},
		{"an archived range of fractions", "docs/SIDE-BY-SIDE.md", "holds 29.7-30.4%<!--", "holds 29.7-30.5%<!--"},
		{"a count of archived runs", "docs/SIDE-BY-SIDE.md", "| maple/rex | 3<!--", "| maple/rex | 4<!--"},
		{"a count of archived rows", "docs/FORMATS.md", "the 98<!--", "the 99<!--"},
		{"a count of archived rows by a column", "docs/FORMATS.md", "fashion (47<!--", "fashion (46<!--"},
		{"a benchmark's metric", "docs/PERFORMANCE.md", "152.7 s<!--", "152.8 s<!--"},
		{"a peak over the file from /usr/bin/time", "docs/PERFORMANCE.md", "**1.19x**<!--", "**1.17x**<!--"},
		{"a committed CSV's range", "docs/PERFORMANCE.md", "1.03 to 1.16<!--", "1.03 to 1.18<!--"},
		{"a ratio of two archived rows", "docs/PERFORMANCE.md", "faster idle and 5.3x<!--", "faster idle and 4.3x<!--"},
		{"an archived per-call time", "docs/MODELS.md", "3.07<!--", "3.70<!--"},
		{"a difference's direction word", "README.md", "1.9 below, p = 0.04<!--", "1.9 above, p = 0.04<!--"},
		{"a difference's direction word after a list", "docs/PAPER.md", "and 1.4<!--= td(width-maple/maple/rex@64~0, oracle); td(width-maple/maple/rex@128~0, oracle); td(width-maple/maple/rex@256~0, oracle); td(width-maple/maple/rex@390~0, oracle) --> below", "and 1.4<!--= td(width-maple/maple/rex@64~0, oracle); td(width-maple/maple/rex@128~0, oracle); td(width-maple/maple/rex@256~0, oracle); td(width-maple/maple/rex@390~0, oracle) --> above"},
		{"the least of several p-values read as a bound from above", "docs/PAPER.md", "points below it (p >= 0.19<!--", "points below it (p < 0.19<!--"},
		{"the iterates at which the seeds pass a level (ifirst)", "docs/PAPER.md", "passes 50% at iteration 13-15<!--", "passes 50% at iteration 14-15<!--"},
		{"the iterate from which a curve stays at a level (isince)", "docs/PAPER.md", "from iteration 23<!--", "from iteration 21<!--"},
		{"the iterate from which every seed stays at a level (isince)", "docs/PAPER.md", "from iteration 10<!--", "from iteration 8<!--"},
		{"a peak's iterate (ipeak)", "docs/PAPER.md", "at iteration 22<!--= ipeak", "at iteration 21<!--= ipeak"},
		{"a median of run minutes", "docs/PAPER.md", "(median 14<!--", "(median 15<!--"},
		{"a range of run minutes", "docs/PAPER.md", "against 14-24 minutes<!--", "against 14-25 minutes<!--"},
		{"a ratio of sds", "docs/PAPER.md", "sd is 3.4 times<!--", "sd is 3.0 times<!--"},
		{"a count of runs below (under)", "docs/PAPER.md", "Of their runs, 8<!--", "Of their runs, 7<!--"},
		{"a count of runs above (over)", "docs/PAPER.md", ", and 1<!--= over", ", and 2<!--= over"},
		{"a count of p-values under 0.05", "README.md", "only 1<!--= under(0.05", "only 2<!--= under(0.05"},
		{"the one width within the target (within)", "README.md", "(maple/rex at 390<!--", "(maple/rex at 256<!--"},
		{"a second width within the target (within)", "README.md", "390<!--= within(1.5, oracle, width-maple/maple/rex@64~0,", "390<!--= within(1.6, oracle, width-maple/maple/rex@64~0,"},
		{"the one width within the target at 10000 images (within)", "docs/PAPER.md", "Only at width 256<!--", "Only at width 390<!--"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := pages[tc.page]
			if strings.Count(text, tc.from) != 1 {
				t.Fatalf("%s: %q found %d times (want once)", tc.page, tc.from, strings.Count(text, tc.from))
			}
			q := qs[tc.page]
			before, _ := q.CheckQuoted(text)
			after, _ := q.CheckQuoted(strings.Replace(text, tc.from, tc.to, 1))
			if len(before) != 0 || len(after) == 0 {
				t.Errorf("%s: %d problems before the edit, %d after (want 0, then some)", tc.page, len(before), len(after))
			}
		})
	}
}

// TestQuotedTokens: what the check reads as a figure, and which figures
// must carry a reference.
func TestQuotedTokens(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // the figures, "!" after one in a results context
	}{
		{"a mean ± sd across a line break", "gives 70.5 ±\n  1.2 here", []string{"70.5 ±\n  1.2!"}},
		{"a signed difference and a p-value", "(-0.8, p = 0.41)", []string{"-0.8!", "0.41!"}},
		{"p-values after the first", "(p = 0.41 and 0.77)", []string{"0.41!", "0.77!"}},
		{"a range of percentages", "share 47-48% of", []string{"47-48!"}},
		{"points", "5.7 points lower, 3 points", []string{"5.7!", "3!"}},
		{"an integer alone is no result", "3 seeds at width 64", []string{"3", "64"}},
		{"names, versions and exponents are no figures", "mlp:390,390 eps1e-14 v0.9.18 1e-14 abl-preset-eps1e-17", nil},
		{"code is no prose", "`--keep 0.3` and\n```\n70.0 ± 0.7\n```\n", nil},
		{"a block a test writes is no prose", "<!-- scaling:start (go test ./report -run TestScalingResults -update) -->\n| 0.206 | 2.6 |\n<!-- scaling:end -->\n", nil},
		{"a reference is no figure", "70.0<!--= cm-maple/maple/irmv1 -->", []string{"70.0!"}},
		{"an approximate figure is a result", "both keep ~15000 samples, back to ~30% of", []string{"15000!", "30!"}},
		{"a tilde inside a name is no figure", "cm-maple/maple/irmv1~2000 and rex@64~0", nil},
		{"CPU-seconds and CPU-minutes", "take 450 CPU-seconds, or 8 CPU-minutes", []string{"450!", "8!"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, tok := range tokens(maskComments(maskPage(tc.text))) {
				s := tok.text
				if tok.results {
					s += "!"
				}
				got = append(got, s)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestQuotedBinding: a comment's references bind to the figures just
// before it, in order, and say so when there are more references than
// figures.
func TestQuotedBinding(t *testing.T) {
	q := newQuoted(t, nil)
	for _, tc := range []struct {
		name, text, want string // want: in a problem ("" for none)
	}{
		{"in order", "maple/irmv1 70.0 ± 0.7 and maple/rex 70.5 ± 1.2<!--= cm-maple/maple/irmv1; cm-maple/maple/rex -->", ""},
		{"swapped", "maple/irmv1 70.5 ± 1.2 and maple/rex 70.0 ± 0.7<!--= cm-maple/maple/irmv1; cm-maple/maple/rex -->", "gives 70.0 ± 0.7"},
		{"more references than figures", "70.0 ± 0.7<!--= cm-maple/maple/irmv1; cm-maple/maple/rex -->", "2 references, but 1 figures"},
		{"a reference to nothing known", "70.0 ± 0.7<!--= cm-maple/maple/nothing -->", "no configuration"},
		{"an ambiguous reference", "70.2<!--= width-maple/maple/rex -->", "name the model"},
		{"unsigned quotes the magnitude", "1.9 below<!--= td(cm-maple/maple/irmv1, oracle) -->", ""},
		{"signed quotes the value", "+1.9<!--= td(cm-maple/maple/irmv1, oracle) -->", "gives -1.9"},
		{"a literal with why", "15%<!--= = 15 # by construction -->", ""},
		{"a literal that differs", "16%<!--= = 15 # by construction -->", "not the literal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs, _ := q.CheckQuoted(tc.text)
			switch {
			case tc.want == "" && len(probs) != 0:
				t.Errorf("problems %v, want none", probs)
			case tc.want != "" && !slices.ContainsFunc(probs, func(p QuotedProblem) bool { return strings.Contains(p.Msg, tc.want) }):
				t.Errorf("problems %v, want one saying %q", probs, tc.want)
			}
		})
	}
}

// TestQuotedRecords: references to rows of an archived CSV chosen by
// their columns, and to the records of a committed printout (the MAPLE
// code's "INSTR {json}" lines), with what they compute over them.
func TestQuotedRecords(t *testing.T) {
	q := newQuoted(t, nil)
	const (
		code1 = "log:sidebyside/authors/irmv1-seed1.log"
		code2 = "log:sidebyside/authors/irmv1-seed2.log"
		sbs   = "archive:sidebyside-irmv1"
		outer = "bench:results/speed/outer-iteration.txt"
		bytes = "bench:results/speed/step-bytes.txt"
		idle  = "bench:results/scaling/idle.txt"
		mem   = "time:results/scaling/memory-300k.txt"
	)
	for _, tc := range []struct {
		name, text, want string // want: in a problem ("" for none)
	}{
		{"a printout's number", "7608<!--= " + code1 + "[iter=2].kept -->", ""},
		{"a wrong figure from a printout", "7609<!--= " + code1 + "[iter=2].kept -->", "gives 7608"},
		{"a printout's fraction as a percentage", "44.7<!--= pct(" + code1 + "[iter=1].ref_test) -->", ""},
		{"a wrong percentage from a printout", "44.6<!--= pct(" + code1 + "[iter=1].ref_test) -->", "gives 44.7"},
		{"another printout", "44.6<!--= pct(" + code2 + "[iter=1].ref_test) -->", ""},
		{"a key no record has", "7608<!--= " + code1 + "[iter=2].nokey -->", "no record"},
		{"a filter no record passes", "7608<!--= " + code1 + "[iter=99].kept -->", "no record"},
		{"a printout not committed", "7608<!--= log:sidebyside/authors/none.log[iter=2].kept -->", "none.log"},
		{"an archived row by its columns", "7656<!--= " + sbs + "[source=maple,seed=1,iter=2].kept -->", ""},
		{"a wrong archived row", "7636<!--= " + sbs + "[source=maple,seed=1,iter=2].kept -->", "gives 7656"},
		{"the mean over a range of iterations", "66.0<!--= pct(" + sbs + "[source=maple,seed=1,iter=3-12].last_test) -->", ""},
		{"the mean ± sd over a range of iterations", "66.0 ± 8.2<!--= pct(" + sbs + "[source=maple,seed=1,iter=3-12].last_test) -->", ""},
		{"the sd alone", "5.4<!--= pct(sd(" + code1 + "[iter=3-12].last_test)) -->", ""},
		{"the best of the values", "74.9<!--= pct(max(" + code1 + "[iter=1-12].ref_test)) -->", ""},
		{"a difference of two bests", "1.4<!--= pct(max(" + code1 + "[iter=1-12].ref_test) - max(" + sbs + "[source=maple,seed=1,iter=1-12].ref_test)) -->", ""},
		{"a wrong difference of two bests", "1.5<!--= pct(max(" + code1 + "[iter=1-12].ref_test) - max(" + sbs + "[source=maple,seed=1,iter=1-12].ref_test)) -->", "gives 1.4"},
		{"the range of several references' values", "43-45<!--= pct(range(" + code1 + "[iter=1].ref_test, " + code2 + "[iter=1].ref_test, " + sbs + "[source=maple,iter=1].ref_test)) -->", ""},
		{"empty cells are no values", "20<!--= n(" + sbs + "[source=maple,iter=2-12].ref_test) -->", ""},
		{"how many lie inside the other's range", "9<!--= inside(" + sbs + "[source=maple,iter=2-12].ref_test, " + sbs + "[source=code,iter=2-12].ref_test, iter) -->", ""},
		{"a wrong count inside", "10<!--= inside(" + sbs + "[source=maple,iter=2-12].ref_test, " + sbs + "[source=code,iter=2-12].ref_test, iter) -->", "gives 9"},
		{"a benchmark's metric", "0.86<!--= " + outer + "[name=OuterIteration/f32].inner-step/sgemm-paired -->", ""},
		{"a wrong benchmark metric", "0.87<!--= " + outer + "[name=OuterIteration/f32].inner-step/sgemm-paired -->", "gives 0.86"},
		{"a benchmark's bytes per op", "44938<!--= " + bytes + "[name=Step/backprop/gorgonia].B/op -->", ""},
		{"a metric the line lacks", "1<!--= " + bytes + "[name=Step/backprop/gorgonia].nometric -->", "no record"},
		{"a sub-benchmark named by its cells", "9375<!--= " + idle + "[name=OuterScaling/n=1000000/d=2048/head=linear].data-MiB -->", ""},
		{"the highest load average uptime printed", "2.3<!--= max(" + idle + "[].load1) -->", ""},
		{"a field of /usr/bin/time -v", "1559528<!--= " + mem + "[run=full batch, before].maximum_resident_set_size_kbytes -->", ""},
		{"a peak over the file's size", "1.30<!--= ratio(" + mem + "[run=full batch, before].maximum_resident_set_size_kbytes, 1200000.125) -->", ""},
		{"a wrong peak over the file's size", "1.10<!--= ratio(" + mem + "[run=maple data, before].maximum_resident_set_size_kbytes, 1200000.125) -->", "gives 1.09"},
		{"a wall time in seconds", "714.33<!--= " + mem + "[run=full batch, before].elapsed_wall_clock_time_h_mm_ss_or_m_ss -->", ""},
		{"a committed CSV outside the archive", "1.16<!--= max(csv:results/scaling/scaling.csv[n=1000000].peak_rss_over_data) -->", ""},
		{"a filter value with a comma", "3.21<!--= archive:threads[build=openblas,onednn (maple's default),machine=idle].seconds -->", ""},
		{"a ratio of two rows", "2.35<!--= ratio(archive:threads[omp_wait_policy=PASSIVE,machine=loaded].seconds, archive:threads[omp_wait_policy=PASSIVE,machine=idle].seconds) -->", ""},
		{"a wrong ratio of two rows", "2.34<!--= ratio(archive:threads[omp_wait_policy=PASSIVE,machine=loaded].seconds, archive:threads[omp_wait_policy=PASSIVE,machine=idle].seconds) -->", "gives 2.35"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs, checked := q.CheckQuoted(tc.text)
			switch {
			case checked != 1:
				t.Errorf("%d figures checked, want 1", checked)
			case tc.want == "" && len(probs) != 0:
				t.Errorf("problems %v, want none", probs)
			case tc.want != "" && !slices.ContainsFunc(probs, func(p QuotedProblem) bool { return strings.Contains(p.Msg, tc.want) }):
				t.Errorf("problems %v, want one saying %q", probs, tc.want)
			}
		})
	}
}

// TestPrintoutRecords: which lines of a printout are records ("TAG
// {json}"), and what a record holds.
func TestPrintoutRecords(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // each record's fields, sorted, "k=v" joined by " "
	}{
		{"a record line", `INSTR {"iter": 1, "ref_test": 0.4465000033378601}`, []string{"iter=1 ref_test=0.4465000033378601"}},
		{"other lines are no records", "outer_iter 0\nFinal Result: Train:  tensor(0.6844) Test:  tensor(0.4465)\nMLP(\n  (0): Linear(in_features=392)\n)", nil},
		{"strings and booleans are fields, arrays are not", `X {"kept": 15012, "kept_groups": [6340, 1101], "name": "a", "ok": true}`, []string{"kept=15012 name=a ok=true"}},
		{"a line that is no JSON object is no record", "INSTR {json}\nINSTR {\"iter\": 2}", []string{"iter=2"}},
		{"the tag is one word", `two words {"iter": 1}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range printoutRecords(tc.text) {
				var kv []string
				for k, v := range r {
					kv = append(kv, k+"="+v)
				}
				slices.Sort(kv)
				got = append(got, strings.Join(kv, " "))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBenchRecords: which lines of a Go benchmark printout are records,
// and what a record holds.
func TestBenchRecords(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // each record's fields, sorted, "k=v" joined by " "
	}{
		{"a benchmark line", "BenchmarkStep/jvp/nets-2    \t       4\t1272063036 ns/op\t    1296 B/op\t      18 allocs/op", []string{"B/op=1296 allocs/op=18 n=4 name=Step/jvp/nets ns/op=1272063036"}},
		{"custom metrics", "BenchmarkOuterIteration/f32-2 \t 1\t178354509492 ns/op\t 0.8613 inner-step/sgemm-paired", []string{"inner-step/sgemm-paired=0.8613 n=1 name=OuterIteration/f32 ns/op=178354509492"}},
		{"without GOMAXPROCS", "BenchmarkGatePass 10 28900000 ns/op", []string{"n=10 name=GatePass ns/op=28900000"}},
		{"uptime's load averages", " 14:15:12 up  9:16,  0 user,  load average: 0.16, 1.00, 2.17", []string{"load15=2.17 load1=0.16 load5=1.00"}},
		{"other lines are no records", "# load before 12.70 9.83 7.33\ngoos: linux\n--- BENCH: BenchmarkOuterIteration/f32-2\n    bench_test.go:165: BLAS: OpenBLAS\nPASS", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := recordStrings(benchRecords(tc.text)); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestTimeRecords: the runs of a /usr/bin/time -v printout.
func TestTimeRecords(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"titled runs", "# a header: not a field\n== full batch, before\nCommand being timed: \"maple run\"\nElapsed (wall clock) time (h:mm:ss or m:ss): 11:54.33\nMaximum resident set size (kbytes): 1559528\n\n== maple data, after\nMaximum resident set size (kbytes): 1291420\n",
			[]string{"command_being_timed=\"maple run\" elapsed_wall_clock_time_h_mm_ss_or_m_ss=714.33 maximum_resident_set_size_kbytes=1559528 run=full batch, before", "maximum_resident_set_size_kbytes=1291420 run=maple data, after"}},
		{"hours", "Elapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03\n", []string{"elapsed_wall_clock_time_h_mm_ss_or_m_ss=3723"}},
		{"untitled runs, one per command", "Command being timed: \"a\"\nExit status: 0\nCommand being timed: \"b\"\nExit status: 1\n", []string{"command_being_timed=\"a\" exit_status=0", "command_being_timed=\"b\" exit_status=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := recordStrings(timeRecords(tc.text)); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func recordStrings(recs []map[string]string) []string {
	var out []string
	for _, r := range recs {
		var kv []string
		for k, v := range r {
			kv = append(kv, k+"="+v)
		}
		slices.Sort(kv)
		out = append(out, strings.Join(kv, " "))
	}
	return out
}

// TestGuarded: a page's pending sections are blanked, "## X" with its
// "### " subsections, "### X" up to the next "## " or "### " heading.
func TestGuarded(t *testing.T) {
	page := "lead 1\n## A\na 2\n### Ax\nax 3\n### Ay\nay 4\n## B\nb 5\n### Bx\nbx 6\n#### Bxx\nbxx 7\n## C\nc 8\n"
	for _, tc := range []struct {
		name    string
		pending []string
		want    string // the digits left
	}{
		{"none", nil, "12345678"},
		{"the lead", []string{""}, "2345678"},
		{"a ## section with its subsections", []string{"## A"}, "15678"},
		{"a ### section up to the next ###", []string{"### Ax"}, "1245678"},
		{"a ### section up to the next ##, its #### included", []string{"### Bx"}, "123458"},
		{"two", []string{"### Ay", "## C"}, "123567"},
		{"the whole page", []string{"*"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := guarded(page, tc.pending)
			if strings.Count(g, "\n") != strings.Count(page, "\n") {
				t.Fatalf("lines changed")
			}
			got := strings.Map(func(r rune) rune {
				if r >= '0' && r <= '9' {
					return r
				}
				return -1
			}, g)
			if got != tc.want {
				t.Errorf("left %q, want %q", got, tc.want)
			}
		})
	}
}

// TestArchivedCSVsParse: every archived CSV, which references read,
// parses (a cell holding a comma is quoted).
func TestArchivedCSVsParse(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "docs", "results", "archive", "*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no archived CSV found (%v)", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := ReadCSV(f); err != nil {
				t.Error(err)
			}
		})
	}
}
