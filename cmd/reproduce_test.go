package cmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/experiments"
	"github.com/maple-ood/maple/nets"
)

// TestReproduce runs a small experiment from its file, writes its files
// and pages, and checks a rerun against them: --check passes on the same
// figures and fails, naming the figure, when a committed digit differs.
func TestReproduce(t *testing.T) {
	top, docs, exp := tinyExperiment(t, `title = "Tiny"
headline = ["erm"]
[[sweep]]
name = "tiny"
args = ["--datasets", "synthetic", "--methods", "erm,upweight", "--seeds", "1,2", "--eval-steps", "50"]
[[sweep]]
name = "tiny-search"
args = ["--datasets", "synthetic", "--methods", "maple:rex", "--seeds", "1", "--outer-iters", "3", "--inner-steps", "10", "--eval-steps", "50"]
`)
	readme := filepath.Join(top, "README.md")
	os.WriteFile(readme, []byte("# x\n"+experiments.HeadlineStart+"\n"+experiments.HeadlineEnd+"\n"), 0o644)
	run := func(runsDir string, check bool) (string, error) {
		out := new(bytes.Buffer)
		f := &Factory{In: strings.NewReader(""), Out: out, Err: new(bytes.Buffer), RunsDir: runsDir, Terminal: func() bool { return false }}
		err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: testCommit, Check: check})
		return out.String(), err
	}
	if _, err := run(t.TempDir(), false); err != nil {
		t.Fatal(err)
	}
	runsCSV := filepath.Join(docs, "results", "tiny", "runs.csv")
	tab, err := experiments.ReadCSV(runsCSV)
	if err != nil || len(tab.Rows) != 5 {
		t.Fatalf("runs.csv: %v, want 5 rows (2 methods x 2 seeds, a search)", err)
	}
	// The search's iterations: one row per outer iteration, and their
	// figure, shown on the results page.
	its, err := experiments.ReadCSV(filepath.Join(docs, "results", "tiny", experiments.IterationsFile))
	if err != nil || len(its.Rows) != 3 || its.Rows[0]["method"] != "maple/rex" {
		t.Fatalf("iterations.csv: %v, want the search's 3 iterations", err)
	}
	for _, f := range []string{"summary.csv", "methods.png", "iterations.png", "iterations.svg"} {
		if _, err := os.Stat(filepath.Join(docs, "results", "tiny", f)); err != nil {
			t.Error(err)
		}
	}
	page, _ := os.ReadFile(filepath.Join(docs, "RESULTS.md"))
	head, _ := os.ReadFile(readme)
	if !strings.Contains(string(page), "## Tiny") || !strings.Contains(string(page), "(results/tiny/iterations.png)") || !strings.Contains(string(head), "| [tiny](docs/experiments/tiny.toml) | synthetic | erm |") {
		t.Fatalf("pages not written:\n%s\n%s", page, head)
	}
	// On another machine (a runs dir without the run directories) the
	// committed rows stand for their cells: nothing is trained again, and
	// the files are rewritten as they were, iterations included.
	before := map[string][]byte{}
	for _, name := range []string{"runs.csv", "summary.csv", experiments.IterationsFile} {
		before[name], _ = os.ReadFile(filepath.Join(docs, "results", "tiny", name))
	}
	elsewhere := t.TempDir()
	errs := new(bytes.Buffer)
	f := &Factory{In: strings.NewReader(""), Out: new(bytes.Buffer), Err: errs, RunsDir: elsewhere, Terminal: func() bool { return false }}
	if err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: testCommit}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errs.String(), "5 committed rows kept") {
		t.Errorf("a rerun elsewhere does not say it kept the committed rows:\n%s", errs)
	}
	if ids, _ := filepath.Glob(filepath.Join(elsewhere, "2*")); len(ids) != 0 {
		t.Errorf("a rerun elsewhere trained committed cells again: %v", ids)
	}
	for name, want := range before {
		if got, _ := os.ReadFile(filepath.Join(docs, "results", "tiny", name)); !bytes.Equal(got, want) {
			t.Errorf("%s changed by a rerun that ran nothing:\n%s\nwant\n%s", name, got, want)
		}
	}
	// --rerun trains them all again: every row is the new runs'.
	errs.Reset()
	if err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: testCommit, Rerun: true}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := filepath.Glob(filepath.Join(elsewhere, "2*")); len(ids) != 5 {
		t.Errorf("--rerun trained %d cells, want 5", len(ids))
	}
	if strings.Contains(errs.String(), "committed rows kept") {
		t.Errorf("--rerun kept committed rows:\n%s", errs)
	}
	// A committed row whose configuration the file no longer gives is
	// left out, and said.
	errs.Reset()
	old, _ := os.ReadFile(exp)
	os.WriteFile(exp, []byte(strings.Replace(string(old), `"erm,upweight", "--seeds", "1,2"`, `"erm", "--seeds", "1,2"`, 1)), 0o644)
	if err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: testCommit, NoRun: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errs.String(), "2 cells' runs left out") {
		t.Errorf("the rows of a cell the file no longer gives are not left out:\n%s", errs)
	}
	if tab, err := experiments.ReadCSV(runsCSV); err != nil || len(tab.Rows) != 3 {
		t.Errorf("runs.csv after upweight left the file: %v, want 3 rows", err)
	}
	os.WriteFile(exp, old, 0o644)
	if err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: testCommit, NoRun: true}); err != nil {
		t.Fatal(err)
	}
	if tab, err := experiments.ReadCSV(runsCSV); err != nil || len(tab.Rows) != 5 {
		t.Fatalf("runs.csv with upweight back in the file: %v, want the 5 rows of the runs dir", err)
	}
	// A method added to the file on a machine without the runs: only its
	// cells train, beside the committed rows.
	errs.Reset()
	partial := t.TempDir()
	fp := *f
	fp.RunsDir = partial
	os.WriteFile(exp, []byte(strings.Replace(string(old), `"erm,upweight", "--seeds", "1,2"`, `"erm,upweight,cvar", "--seeds", "1,2"`, 1)), 0o644)
	if err := reproduceRun(context.Background(), &ReproduceOptions{F: &fp, Name: exp, Jobs: 1, Commit: testCommit}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := filepath.Glob(filepath.Join(partial, "2*")); len(ids) != 2 || !strings.Contains(errs.String(), "5 committed rows kept") {
		t.Errorf("a new method beside committed rows: %d cells trained (want cvar's 2):\n%s", len(ids), errs)
	}
	if tab, err := experiments.ReadCSV(runsCSV); err != nil || len(tab.Rows) != 7 {
		t.Errorf("runs.csv with cvar added: %v, want 7 rows", err)
	}
	os.WriteFile(exp, old, 0o644)
	if err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: testCommit, NoRun: true}); err != nil {
		t.Fatal(err)
	}
	// A rerun from scratch repeats every figure.
	out, err := run(t.TempDir(), true)
	if err != nil || !strings.Contains(out, "every figure as committed") {
		t.Fatalf("--check of a faithful rerun: %v\n%s", err, out)
	}
	// A committed figure one digit off is caught, and named.
	b, err := os.ReadFile(runsCSV)
	if err != nil {
		t.Fatal(err)
	}
	var changed strings.Builder
	lines := strings.SplitN(string(b), "\n", 3)
	col := -1
	for i, h := range tab.Header {
		if h == "test_acc" {
			col = i
		}
	}
	fields := strings.Split(lines[1], ",") // the first run's row: no quoted commas in synthetic rows
	fields[col] = "99.9999"
	changed.WriteString(lines[0] + "\n" + strings.Join(fields, ",") + "\n" + lines[2])
	if err := os.WriteFile(runsCSV, []byte(changed.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run(t.TempDir(), true)
	if err == nil || !strings.Contains(out, `test_acc "99.9999" committed`) || !strings.Contains(err.Error(), "1 differences") {
		t.Fatalf("--check of a changed figure: %v\n%s", err, out)
	}
}

// TestReproduceSubset: --sweeps and --seeds run part of an experiment
// (the files are written from what has run), or check part of it with
// --check; a sweep or seed the
// experiment does not have is a usage error naming the flag, before
// anything is written.
func TestReproduceSubset(t *testing.T) {
	_, docs, exp := tinyExperiment(t, `title = "Tiny"
[[sweep]]
name = "a"
args = ["--datasets", "synthetic", "--methods", "erm", "--seeds", "1,2", "--eval-steps", "20"]
[[sweep]]
name = "b"
args = ["--datasets", "synthetic", "--methods", "upweight", "--seeds", "1,2", "--eval-steps", "20"]
[[sweep]]
name = "c1"
args = ["--datasets", "synthetic", "--methods", "upweight", "--seeds", "1", "--eval-steps", "20"]
`)
	runsDir := t.TempDir()
	run := func(o ReproduceOptions) (string, error) {
		errs := new(bytes.Buffer)
		o.F = &Factory{In: strings.NewReader(""), Out: new(bytes.Buffer), Err: errs, RunsDir: runsDir, Terminal: func() bool { return false }}
		o.Name, o.Jobs, o.Commit = exp, 1, testCommit
		err := reproduceRun(context.Background(), &o)
		return errs.String(), err
	}
	for _, c := range []struct {
		name string
		o    ReproduceOptions
		want string
	}{
		{"no such sweep", ReproduceOptions{Sweeps: []string{"c"}}, `--sweeps: experiment tiny has no sweep "c"; its sweeps: a, b, c1`},
		{"no such seed", ReproduceOptions{Seeds: []uint{3}}, "--seeds: experiment tiny's sweeps run no seed 3; they run seeds 1 2"},
		{"with --no-run", ReproduceOptions{Sweeps: []string{"a"}, NoRun: true}, "--sweeps and --seeds choose what to run"},
		{"seeds with --no-run", ReproduceOptions{Seeds: []uint{1}, NoRun: true}, "--sweeps and --seeds choose what to run"},
		{"a sweep without the seed", ReproduceOptions{Sweeps: []string{"c1"}, Seeds: []uint{2}}, "none of sweeps c1 runs seeds 2: nothing to run"},
	} {
		_, err := run(c.o)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a usage error saying %q", c.name, err, c.want)
		}
	}
	for flag, want := range map[string]string{"--sweeps": "--sweeps is empty", "--seeds": `invalid argument "" for "--seeds" flag`} {
		c := NewCmdReproduce(&Factory{Out: new(bytes.Buffer), Err: new(bytes.Buffer)}, func(*ReproduceOptions) error {
			t.Errorf("%s given empty: the command ran", flag)
			return nil
		})
		c.SetArgs([]string{exp, flag, ""})
		c.SetOut(new(bytes.Buffer))
		c.SetErr(new(bytes.Buffer))
		if err := c.Execute(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s \"\": %v, want an error saying %q", flag, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(docs, "results")); err == nil {
		t.Error("a usage error wrote results")
	}
	if _, err := run(ReproduceOptions{Sweeps: []string{"b"}, Seeds: []uint{2}}); err != nil {
		t.Fatal(err)
	}
	tab, err := experiments.ReadCSV(filepath.Join(docs, "results", "tiny", "runs.csv"))
	if err != nil || len(tab.Rows) != 1 || tab.Rows[0]["sweep"] != "b" || tab.Rows[0]["seed"] != "2" {
		t.Fatalf("runs.csv: %v %v, want sweep b's seed 2 alone", err, tab)
	}
	// --check of a part compares that part alone: sweep b's seed 2 against
	// its committed row (the other cells' rows are not asked for), and a
	// part with no committed row is a difference.
	if _, err := run(ReproduceOptions{Sweeps: []string{"b"}, Seeds: []uint{2}, Check: true}); err != nil {
		t.Errorf("--check of sweep b's seed 2: %v", err)
	}
	if _, err := run(ReproduceOptions{Sweeps: []string{"a"}, Seeds: []uint{1}, Check: true}); err == nil || !strings.Contains(err.Error(), "1 differences") {
		t.Errorf("--check of sweep a's seed 1, which has no committed row: %v, want 1 difference", err)
	}
}

// tinyExperiment writes an experiment file of the given text as
// TOP/docs/experiments/tiny.toml in a temporary directory.
func tinyExperiment(t *testing.T, text string) (top, docs, exp string) {
	t.Helper()
	top = t.TempDir()
	docs = filepath.Join(top, "docs")
	if err := os.MkdirAll(filepath.Join(docs, "experiments"), 0o755); err != nil {
		t.Fatal(err)
	}
	exp = filepath.Join(docs, "experiments", "tiny.toml")
	if err := os.WriteFile(exp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return top, docs, exp
}

func TestTimeLeftWords(t *testing.T) {
	for _, tc := range []struct {
		name    string
		minutes float64
		untimed int
		want    string
	}{
		{"nothing left", 0, 0, "-"},
		{"minutes, rounded up", 40.2, 0, "41 min"},
		{"hours from 90 minutes", 90, 0, "1.5 h"},
		{"untimed cells alone", 0, 3, "3 untimed cells"},
		{"one untimed cell", 0, 1, "1 untimed cell"},
		{"both", 294, 21, "4.9 h + 21 untimed cells"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := timeLeft(tc.minutes, tc.untimed); got != tc.want {
				t.Errorf("timeLeft(%v, %d) = %q, want %q", tc.minutes, tc.untimed, got, tc.want)
			}
		})
	}
}

// testCommit stands for a clean build's commit: a test binary names none.
const testCommit = "0123456789abcdef0123456789abcdef01234567"

// TestReproduceNeedsCleanBuild: maple reproduce trains and records rows
// only with a binary built from a commit without uncommitted changes
// (119 committed rows named a -dirty commit nobody could build again);
// --check and --no-run, which record no new training, are let through.
func TestReproduceNeedsCleanBuild(t *testing.T) {
	_, docs, exp := tinyExperiment(t, `title = "Tiny"
[[sweep]]
name = "a"
args = ["--datasets", "synthetic", "--methods", "erm", "--seeds", "1", "--eval-steps", "20"]
`)
	for _, tc := range []struct {
		name, commit string
		check        bool
		want         string
	}{
		{"a dirty build", "3189fff-dirty", false, "uncommitted changes (3189fff-dirty)"},
		{"a build that names no commit", "unknown", false, "names none"},
		{"a dirty build's --check", "3189fff-dirty", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Factory{In: strings.NewReader(""), Out: new(bytes.Buffer), Err: new(bytes.Buffer), RunsDir: t.TempDir(), Terminal: func() bool { return false }}
			err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: tc.commit, Check: tc.check})
			if tc.want == "" {
				if err != nil && strings.Contains(err.Error(), "uncommitted") {
					t.Errorf("--check refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want a refusal saying %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(docs, "results", "tiny", "runs.csv")); err == nil {
				t.Error("a refused build recorded rows")
			}
		})
	}
}

// TestReproduceNeedsItsEnv: an experiment whose file gives an env is
// refused, before anything is written, by a process that lacks it; the
// message names what to set and the command. --no-run needs no env.
func TestReproduceNeedsItsEnv(t *testing.T) {
	t.Setenv("MAPLE_TEST_KERNELS", "")
	_, docs, exp := tinyExperiment(t, `title = "Tiny"
[env]
MAPLE_TEST_KERNELS = "old"
[[sweep]]
name = "a"
args = ["--datasets", "synthetic", "--methods", "erm", "--seeds", "1", "--eval-steps", "20"]
`)
	f := &Factory{In: strings.NewReader(""), Out: new(bytes.Buffer), Err: new(bytes.Buffer), RunsDir: t.TempDir(), Terminal: func() bool { return false }}
	err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: "3189fff"})
	if want := "set them on the command: MAPLE_TEST_KERNELS=old maple reproduce tiny"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want a refusal saying %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(docs, "results", "tiny", "runs.csv")); err == nil {
		t.Error("a refused reproduce recorded rows")
	}
	if err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: "3189fff", NoRun: true}); err != nil && strings.Contains(err.Error(), "MAPLE_TEST_KERNELS") {
		t.Errorf("--no-run asked for the env: %v", err)
	}
}

// TestReproduceRerunsDirtyRows: a committed row made by a build with
// uncommitted changes (its commit ends in -dirty) stands for no cell:
// maple reproduce trains its cell again, as it does a missing one, and
// the fresh row replaces it; the clean rows stand.
func TestReproduceRerunsDirtyRows(t *testing.T) {
	_, docs, exp := tinyExperiment(t, `title = "Tiny"
[[sweep]]
name = "tiny"
args = ["--datasets", "synthetic", "--methods", "erm", "--seeds", "1,2", "--eval-steps", "50"]
`)
	errs := new(bytes.Buffer)
	f := &Factory{In: strings.NewReader(""), Out: new(bytes.Buffer), Err: errs, RunsDir: t.TempDir(), Terminal: func() bool { return false }}
	if err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: testCommit}); err != nil {
		t.Fatal(err)
	}
	runsCSV := filepath.Join(docs, "results", "tiny", "runs.csv")
	b, err := os.ReadFile(runsCSV)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 3) // header, seed 1's row, the rest
	dirty := commit() + "-dirty"
	if !strings.Contains(lines[1], ","+commit()+",") {
		t.Fatalf("fixture: the first row names no commit %s: %s", commit(), lines[1])
	}
	lines[1] = strings.Replace(lines[1], ","+commit()+",", ","+dirty+",", 1)
	if err := os.WriteFile(runsCSV, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	f.RunsDir = elsewhere
	errs.Reset()
	if err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: testCommit}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := filepath.Glob(filepath.Join(elsewhere, "2*")); len(ids) != 1 {
		t.Errorf("trained %d cells, want 1 (the -dirty row's)", len(ids))
	}
	if !strings.Contains(errs.String(), "1 committed rows were made by a build with uncommitted changes") {
		t.Errorf("stderr does not say the -dirty row's cell is trained again:\n%s", errs)
	}
	tab, err := experiments.ReadCSV(runsCSV)
	if err != nil || len(tab.Rows) != 2 {
		t.Fatalf("runs.csv: %v, want 2 rows", err)
	}
	for _, r := range tab.Rows {
		if strings.HasSuffix(r["commit"], "-dirty") {
			t.Errorf("runs.csv still holds the -dirty row: %v", r)
		}
	}
}

// TestReproduceNoRunDescribesBF16: --no-run writes an experiment's files
// on a machine that could not train its bf16 sweep: describing a cell
// asks nothing of the CPU. Before, it refused with "this CPU has no
// native bf16 products", so the precision experiment's files could be
// written only on a bf16 machine.
func TestReproduceNoRunDescribesBF16(t *testing.T) {
	_, _, exp := tinyExperiment(t, `title = "Tiny"
[[sweep]]
name = "a"
args = ["--datasets", "synthetic", "--methods", "maple:irmv1", "--seeds", "1", "--precision", "bf16"]
`)
	f := &Factory{In: strings.NewReader(""), Out: new(bytes.Buffer), Err: new(bytes.Buffer), RunsDir: t.TempDir(), Terminal: func() bool { return false }}
	if err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: testCommit, NoRun: true}); err != nil {
		t.Fatalf("--no-run of a bf16 sweep: %v", err)
	}
	if ok, _ := nets.BF16(); ok {
		return // this machine trains bf16: the refusal below is not its to give
	}
	err := reproduceRun(context.Background(), &ReproduceOptions{F: f, Name: exp, Jobs: 1, Commit: testCommit})
	if err == nil || !strings.Contains(err.Error(), "--precision bf16") {
		t.Errorf("training a bf16 sweep without bf16: %v, want refused naming --precision bf16", err)
	}
	if entries, _ := os.ReadDir(f.RunsDir); len(entries) > 0 {
		t.Errorf("the refused sweep left %d entries in the runs directory", len(entries))
	}
}
