package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ownEmbeddingsPage is the worked path from one's own embeddings to
// weights that TestOwnEmbeddingsPage runs.
const ownEmbeddingsPage = "docs/OWN-EMBEDDINGS.md"

// pageCommand is a shell command of a page's sh blocks: a command to
// run, or an assignment of a literal (FEATURES=x.npy) or of a command's
// output (RUN=$(...)).
type pageCommand struct {
	line   string // as the page writes it, continuations joined
	assign string // the variable it assigns, or ""
	value  string // a literal assignment's value
	subst  string // a command substitution's command
}

var (
	literalAssign = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)=([^\s$()]+)$`)
	substAssign   = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)=\$\((.*)\)$`)
)

// pageCommands returns the commands of the page's ```sh blocks and the
// body of the python block after marker.
func pageCommands(t *testing.T, page, marker string) ([]pageCommand, string) {
	t.Helper()
	var cmds []pageCommand
	rest := page
	for {
		_, after, ok := strings.Cut(rest, "```sh\n")
		if !ok {
			break
		}
		block, next, ok := strings.Cut(after, "```")
		if !ok {
			t.Fatalf("%s: a sh block is not closed", ownEmbeddingsPage)
		}
		rest = next
		block = strings.ReplaceAll(block, "\\\n", " ")
		for _, l := range strings.Split(block, "\n") {
			l = strings.Join(strings.Fields(l), " ")
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			c := pageCommand{line: l}
			if m := literalAssign.FindStringSubmatch(l); m != nil {
				c.assign, c.value = m[1], m[2]
			} else if m := substAssign.FindStringSubmatch(l); m != nil {
				c.assign, c.subst = m[1], m[2]
			}
			cmds = append(cmds, c)
		}
	}
	_, after, ok := strings.Cut(page, marker+"\n```python\n")
	snippet, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatalf("%s has no python block after %s", ownEmbeddingsPage, marker)
	}
	return cmds, snippet
}

// ownData is the small data set the test writes where the page's
// FEATURES and LABELS say: two classes, a spurious attribute that agrees
// with the label on 90% of the training rows and on half of the others,
// the four groups named y{label}_a{attr}, splits drawn at random (the
// rows of a split are not contiguous).
type ownData struct {
	rows, dim int
	x         []float32
	label     []int
	attr      []int
	split     []string
}

func newOwnData(rows, dim int, seed uint64) *ownData {
	r := rand.New(rand.NewPCG(seed, 1))
	d := &ownData{rows: rows, dim: dim, x: make([]float32, rows*dim), label: make([]int, rows), attr: make([]int, rows), split: make([]string, rows)}
	for i := range rows {
		switch u := r.Float64(); {
		case u < 0.6:
			d.split[i] = "train"
		case u < 0.8:
			d.split[i] = "val"
		default:
			d.split[i] = "test"
		}
		y := r.IntN(2)
		a := y
		agree := 0.5
		if d.split[i] == "train" {
			agree = 0.9
		}
		if r.Float64() >= agree {
			a = 1 - y
		}
		d.label[i], d.attr[i] = y, a
		for j := range dim {
			d.x[i*dim+j] = float32(r.NormFloat64())
		}
		d.x[i*dim] += float32(2*y-1) * 1.0   // the core direction
		d.x[i*dim+1] += float32(2*a-1) * 2.0 // the spurious one, stronger
	}
	return d
}

func (d *ownData) group(i int) string { return fmt.Sprintf("y%d_a%d", d.label[i], d.attr[i]) }

func (d *ownData) count(split string) int {
	n := 0
	for _, s := range d.split {
		if s == split {
			n++
		}
	}
	return n
}

// write writes the features as a float32 .npy and the labels as a CSV.
func (d *ownData) write(t *testing.T, npyPath, csvPath string) {
	t.Helper()
	header := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", d.rows, d.dim)
	header += strings.Repeat(" ", 63-(10+len(header))%64) + "\n" // the data starts 64-byte aligned
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	binary.Write(&b, binary.LittleEndian, d.x)
	var c strings.Builder
	c.WriteString("label,attr,group,split\n")
	for i := range d.rows {
		fmt.Fprintf(&c, "%d,%d,%s,%s\n", d.label[i], d.attr[i], d.group(i), d.split[i])
	}
	for path, data := range map[string][]byte{npyPath: b.Bytes(), csvPath: []byte(c.String())} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOwnEmbeddingsPage runs docs/OWN-EMBEDDINGS.md as a person would:
// it writes a small .npy and CSV where the page's FEATURES and LABELS
// name them, runs each command of its sh blocks in order (headless,
// stdin from /dev/null, maple on the PATH, the runs dir a fresh one) and
// checks what each should produce; then the PyTorch snippet, under
// /usr/bin/python3 with torch where it is installed. A command the test
// does not know fails it: the page and the test cannot drift apart.
func TestOwnEmbeddingsPage(t *testing.T) {
	page, err := os.ReadFile(ownEmbeddingsPage)
	if err != nil {
		t.Fatal(err)
	}
	cmds, snippet := pageCommands(t, string(page), "<!-- own-embeddings snippet -->")
	bin := buildMaple(t)
	binDir := filepath.Dir(bin)
	if filepath.Base(bin) != "maple" { // a given MAPLE_TEST_BIN
		binDir = t.TempDir()
		if err := os.Symlink(bin, filepath.Join(binDir, "maple")); err != nil {
			t.Fatal(err)
		}
	}
	work := t.TempDir()
	runsDir := filepath.Join(work, "runs")
	vars := map[string]string{}
	env := append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "MAPLE_RUNS_DIR="+runsDir)
	data := newOwnData(400, 16, 7)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sh := func(line string) (string, string) {
		t.Helper()
		c := exec.CommandContext(ctx, "sh", "-c", line)
		c.Dir, c.Stdin = work, nil // nil: /dev/null
		c.Env = slices.Clone(env)
		for k, v := range vars {
			c.Env = append(c.Env, k+"="+v)
		}
		var out, errOut bytes.Buffer
		c.Stdout, c.Stderr = &out, &errOut
		if err := c.Run(); err != nil {
			t.Fatalf("%s: %v\n%s%s", line, err, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}

	seen := map[string]bool{}
	var trials int
	var exported string // the export's --out
	for _, c := range cmds {
		switch {
		case c.value != "":
			vars[c.assign] = c.value
			if c.assign == "LABELS" {
				if vars["FEATURES"] == "" {
					t.Fatalf("%s sets LABELS before FEATURES", ownEmbeddingsPage)
				}
				data.write(t, filepath.Join(work, vars["FEATURES"]), filepath.Join(work, c.value))
				seen["files"] = true
			}
			continue
		case c.subst != "":
			out, _ := sh(c.subst)
			vars[c.assign] = strings.TrimSpace(out)
			if c.assign != "RUN" || !strings.HasPrefix(c.subst, "maple table ") {
				t.Fatalf("%s: the test checks no such assignment: %s", ownEmbeddingsPage, c.line)
			}
			checkBestRun(t, runsDir, vars["RUN"], trials)
			seen["pick"] = true
			continue
		}
		if !seen["files"] {
			t.Fatalf("%s runs %q before FEATURES and LABELS name the files", ownEmbeddingsPage, c.line)
		}
		out, errOut := sh(c.line)
		f := strings.Fields(c.line)
		if len(f) < 2 || f[0] != "maple" {
			t.Fatalf("%s: the test checks no such command: %s", ownEmbeddingsPage, c.line)
		}
		seen[f[1]] = true
		switch f[1] {
		case "data":
			for _, g := range []string{"y0_a0", "y0_a1", "y1_a0", "y1_a1"} {
				if !strings.Contains(out, g) {
					t.Errorf("%s: the description does not name the group %s:\n%s", c.line, g, out)
				}
			}
			if !regexp.MustCompile(`train\s+` + strconv.Itoa(data.count("train")) + `\b`).MatchString(out) {
				t.Errorf("%s: the description does not give the %d training rows:\n%s", c.line, data.count("train"), out)
			}
		case "sweep":
			m := regexp.MustCompile(`--trials (\d+)`).FindStringSubmatch(c.line)
			if m == nil || !strings.Contains(c.line, "--search random") || !strings.Contains(c.line, "--early-stop") {
				t.Fatalf("%s: want a random search with --trials N and --early-stop", c.line)
			}
			trials, _ = strconv.Atoi(m[1])
			progress := out + errOut // the cells' lines go to stderr
			stopped := 0
			for k := 1; k <= trials; k++ {
				done := regexp.MustCompile(fmt.Sprintf(`trial %d seed \d+ done`, k)).MatchString(progress)
				early := regexp.MustCompile(fmt.Sprintf(`trial %d seed \d+ early-stopped`, k)).MatchString(progress)
				if !done && !early {
					t.Errorf("%s: trial %d neither finished nor was stopped early:\n%s", c.line, k, progress)
				}
				if early && !done {
					stopped++
				}
			}
			if stopped == 0 || stopped == trials {
				t.Errorf("%s: %d of %d trials stopped early; want some, not all:\n%s", c.line, stopped, trials, progress)
			}
		case "table":
			if !strings.Contains(out, "the best on validation of") {
				t.Errorf("%s: the table does not keep the trial validation ranks first:\n%s", c.line, out)
			}
		case "export":
			if !strings.Contains(c.line, "$RUN") || !strings.Contains(c.line, "--format npy") {
				t.Fatalf("%s: want the npy export of $RUN", c.line)
			}
			m := regexp.MustCompile(`--out (\S+)`).FindStringSubmatch(c.line)
			if m == nil {
				t.Fatalf("%s: want --out DIR", c.line)
			}
			exported = m[1]
			for _, name := range []string{"u.npy", "ids.npy"} {
				if n := npyLen(t, filepath.Join(work, m[1], name)); n != data.count("train") {
					t.Errorf("%s: %s holds %d values, want one per training row (%d)", c.line, name, n, data.count("train"))
				}
			}
		default:
			t.Fatalf("%s: the test checks no such command: %s", ownEmbeddingsPage, c.line)
		}
	}
	for _, k := range []string{"files", "data", "sweep", "table", "pick", "export"} {
		if !seen[k] {
			t.Errorf("%s lacks its %s step", ownEmbeddingsPage, k)
		}
	}
	if t.Failed() {
		return
	}

	for _, name := range []string{vars["FEATURES"], vars["LABELS"], exported + "/u.npy", exported + "/ids.npy"} {
		if !strings.Contains(snippet, `"`+name+`"`) {
			t.Errorf("the PyTorch snippet does not read %q, the file the commands write or read", name)
		}
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import torch").Run(); err != nil {
		t.Skip("the commands ran; the PyTorch snippet is not run: /usr/bin/python3 has no torch (Debian's python3-torch)")
	}
	script := snippet + fmt.Sprintf(`
import math
split = [r["split"] for r in csv.DictReader(open(%q))]
assert len(u) == len(rows) == len(x) == len(y) == %d, (len(u), len(rows))
assert all(split[i] == "train" for i in rows), "ids.npy names a row outside the training split"
assert (u == 0).any() and (u > 0).any(), u
drawn = set(int(i) for i in WeightedRandomSampler(u, num_samples=5000))
assert all(u[i] > 0 for i in drawn), "the sampler drew a dropped row"
assert math.isfinite(loss.item()), loss
print("ok")
`, vars["LABELS"], data.count("train"))
	c := exec.CommandContext(ctx, py, "-c", script)
	c.Dir = work
	b, err := c.CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(b)), "ok") {
		t.Errorf("the PyTorch snippet: %v\n%s", err, b)
	}
}

// checkBestRun checks that run is a finished run of the runs dir whose
// validation worst-group accuracy no other finished run beats, and that
// trials runs were made.
func checkBestRun(t *testing.T, runsDir, run string, trials int) {
	t.Helper()
	if run == "" {
		t.Fatal("the page's RUN=$(...) gave no run id")
	}
	best, mine, finished, made := -1.0, -1.0, 0, 0
	for _, e := range runDirs(t, runsDir) {
		if _, err := os.Stat(filepath.Join(runsDir, e.Name(), "run.json")); err != nil {
			continue
		}
		made++
		b, err := os.ReadFile(filepath.Join(runsDir, e.Name(), "summary.json"))
		if err != nil {
			continue // stopped early
		}
		var s struct {
			Done   bool `json:"done"`
			Result struct {
				ValWorst float64 `json:"val_worst_group_acc"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if !s.Done {
			continue
		}
		finished++
		best = math.Max(best, s.Result.ValWorst)
		if e.Name() == run {
			mine = s.Result.ValWorst
		}
	}
	if made != trials {
		t.Errorf("%d runs in the runs dir, want the sweep's %d trials", made, trials)
	}
	if mine < 0 || mine != best {
		t.Errorf("RUN=%s has val worst-group %.4f (-1: not a finished run); the best of the %d finished runs is %.4f", run, mine, finished, best)
	}
}

// npyLen reads the length of a one-dimensional .npy's shape.
func npyLen(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`'shape': \((\d+),\)`).FindSubmatch(b[:min(len(b), 256)])
	if m == nil {
		t.Fatalf("%s: no one-dimensional shape in its header", path)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}
