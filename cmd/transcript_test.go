package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/maple-ood/maple/nets"
)

// transcript is a fenced block of a page that shows commands ("$ "
// lines, `maple ...` or `go run . ...`, optionally `&& head -N FILE`)
// and what they printed on standard output.
type transcript struct {
	page  string // under the checkout
	first string // the block's first line, which finds it
	mnist bool   // it reads MNIST from ../shared/data
}

// transcripts are the pages' command transcripts TestPageTranscripts
// reruns.
var transcripts = []transcript{
	{page: "docs/DATASETS.md", first: "$ go run . data cmnist --data-dir ../shared/data", mnist: true},
	{page: "docs/FORMATS.md", first: "$ maple sweep --name demo --datasets synthetic --methods erm,oracle,maple:rex --seeds 1"},
}

// pageRunsDir is the runs directory the transcripts show: a user's
// default.
const pageRunsDir = "/home/ada/.local/share/maple/runs"

// transcriptClock matches what a transcript's clock and machine decide
// (run ids, start times, wall times, phase seconds), and runs of spaces
// (column widths follow them); the comparison blanks them.
var transcriptClock = []*regexp.Regexp{
	regexp.MustCompile(`\b\d{8}-\d{6}-\d{2}\b`),                   // a run id
	regexp.MustCompile(`\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\b`), // a start time
	regexp.MustCompile(`\b\d{2}-\d{2} \d{2}:\d{2}\b`),             // maple ls's STARTED
	regexp.MustCompile(`\b\d+(\.\d+)? s\b`),                       // a phase's seconds
	regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+s\b`),                  // maple ls's TIME
}

// spaces are the runs of spaces a table's column widths make.
var spaces = regexp.MustCompile(` +`)

// blankClock returns text with its clock fields replaced by "~" and its
// runs of spaces by one.
func blankClock(text string) string {
	for _, re := range transcriptClock {
		text = re.ReplaceAllString(text, "~")
	}
	return spaces.ReplaceAllString(text, " ")
}

// pageTimes returns got with its start times replaced, in order, by
// those the page's block shows, so that a rewritten block keeps its run
// ids' times.
func pageTimes(got, block string) string {
	for _, re := range transcriptClock[1:3] {
		page, i := re.FindAllString(block, -1), 0
		got = re.ReplaceAllStringFunc(got, func(s string) string {
			if i++; i <= len(page) {
				return page[i-1]
			}
			return s
		})
	}
	return got
}

// runTranscript runs the commands of a transcript's block (lines) in a
// new working directory and runs directory and returns the block as they
// print it: each "$ " line followed by its standard output. data is the
// MNIST directory the page calls ../shared/data.
func runTranscript(t *testing.T, lines []string, data string) string {
	t.Helper()
	t.Chdir(t.TempDir())
	dir := filepath.Join(t.TempDir(), "runs")
	// The page's run ids stand for the runs' own in the order they
	// first appear: a command is given the run's, its output the page's.
	idRe := transcriptClock[0]
	var pageIDs, ids []string
	for _, id := range idRe.FindAllString(strings.Join(lines, "\n"), -1) {
		if !slices.Contains(pageIDs, id) {
			pageIDs = append(pageIDs, id)
		}
	}
	var b strings.Builder
	for _, l := range lines {
		cmd, ok := strings.CutPrefix(l, "$ ")
		if !ok {
			continue
		}
		b.WriteString(l + "\n")
		cmd, head, _ := strings.Cut(cmd, " && ")
		args := strings.Fields(cmd)
		switch {
		case len(args) > 0 && args[0] == "maple":
			args = args[1:]
		case len(args) > 2 && args[0] == "go" && args[1] == "run" && args[2] == ".":
			args = args[3:]
		default:
			t.Fatalf("%q: not a maple command", l)
		}
		for i, a := range args {
			if a == "../shared/data" {
				args[i] = data
			}
			if j := slices.Index(pageIDs, a); j >= 0 && j < len(ids) {
				args[i] = ids[j]
			}
		}
		code, out, errOut := runRoot(t, dir, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, code, errOut)
		}
		out = strings.ReplaceAll(out, dir, pageRunsDir)
		out = idRe.ReplaceAllStringFunc(out, func(id string) string {
			j := slices.Index(ids, id)
			if j < 0 {
				ids, j = append(ids, id), len(ids)
			}
			if j < len(pageIDs) {
				return pageIDs[j]
			}
			return id
		})
		if data != "" {
			out = strings.ReplaceAll(out, data, "../shared/data")
		}
		b.WriteString(out)
		if head != "" {
			f := strings.Fields(head)
			n, err := strconv.Atoi(strings.TrimPrefix(f[1], "-"))
			if len(f) != 3 || f[0] != "head" || err != nil {
				t.Fatalf("%q: want && head -N FILE", head)
			}
			file, err := os.ReadFile(f[2])
			if err != nil {
				t.Fatal(err)
			}
			fl := strings.SplitAfter(string(file), "\n")
			b.WriteString(strings.Join(fl[:min(n, len(fl))], ""))
		}
	}
	return b.String()
}

// TestPageTranscripts reruns the commands of the pages' transcripts
// (docs/DATASETS.md's `maple data cmnist`, docs/FORMATS.md's sweep, ls,
// show and export) and fails when what they print differs from the
// page's block in anything but the clock's fields (run ids, start times,
// wall and phase times) and column widths: each figure on them is what
// the commands print. -update rewrites the blocks.
// The figures are the pure-Go build's on two threads.
func TestPageTranscripts(t *testing.T) {
	if !strings.HasPrefix(nets.BLAS(), "gonum") {
		t.Skipf("the transcripts are the pure-Go build's; this build uses %s", nets.BLAS())
	}
	if testing.Short() {
		t.Skip("-short: the transcripts' runs take CPU-seconds")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	top, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	data := os.Getenv("MAPLE_DATA_DIR")
	if data == "" {
		data = filepath.Join(top, "..", "shared", "data")
	}
	if data, err = filepath.Abs(data); err != nil {
		t.Fatal(err)
	}
	for _, tr := range transcripts {
		t.Run(tr.page, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(data, "mnist")); err != nil && tr.mnist {
				t.Skip("no MNIST under $MAPLE_DATA_DIR or ../shared/data")
			}
			path := filepath.Join(top, tr.page)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			start := strings.Index(page, "```\n"+tr.first+"\n")
			if start < 0 {
				t.Fatalf("%s: no block starting %q", tr.page, tr.first)
			}
			start += len("```\n")
			end := start + strings.Index(page[start:], "```\n")
			block := page[start:end]
			got := runTranscript(t, strings.Split(block, "\n"), data)
			if blankClock(got) == blankClock(block) {
				return
			}
			if *update {
				got = pageTimes(got, block)
				if err := os.WriteFile(path, []byte(page[:start]+got+page[end:]), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			t.Errorf("%s: the block differs from what its commands print (beyond the clock's fields); go test ./cmd -run TestPageTranscripts -update rewrites it.\npage:\n%s\nprinted:\n%s", tr.page, block, got)
		})
	}
}

// TestBlankClockKeepsFigures: the comparison blanks the clock's fields
// and nothing else: a changed figure in a transcript's line still
// differs.
func TestBlankClockKeepsFigures(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"20261127-040345-01  synthetic  maple/rex  done    30/30  74.4%", "20261127-040345-01  synthetic  maple/rex  done    30/30  74.5%"},
		{"  val  acc 0.7690  worst-group 0.7436", "  val  acc 0.7690  worst-group 0.7437"},
		{"weights: the validation-selected iterate 7 of 30", "weights: the validation-selected iterate 8 of 30"},
		{"summary (done): selected on validation (val worst-group accuracy) at step 58", "summary (done): selected on validation (val worst-group accuracy) at step 59"},
		{"0,0,0,1,0.8484749209655478,0,0,0,1", "0,0,0,1,0.8484749209655479,0,0,0,1"},
		{"train  45000  0.249", "train  45001  0.249"},
	} {
		if blankClock(c.a) == blankClock(c.b) {
			t.Errorf("%q and %q compare equal", c.a, c.b)
		}
	}
	for _, c := range []struct{ a, b string }{
		{"20261127-040343-01  erm  done  11-27 04:03  1s", "20261128-110001-02  erm  done  11-28 11:00  12s"},
		{"search time over 30 iterations: inner 1.8 s (0.06 s per iteration)", "search time over 30 iterations: inner 2.4 s (0.08 s per iteration)"},
	} {
		if blankClock(c.a) != blankClock(c.b) {
			t.Errorf("%q and %q differ: %q against %q", c.a, c.b, blankClock(c.a), blankClock(c.b))
		}
	}
}
