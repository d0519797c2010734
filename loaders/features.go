package loaders

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
)

// FeaturesConfig describes a bring-your-own table: a CSV file with a
// header, holding the features and the annotations, or a .npy feature
// matrix (N x D) with a CSV of annotations, one row per sample.
type FeaturesConfig struct {
	CSV   string `json:"csv"`   // path of the CSV file; required
	NPY   string `json:"npy"`   // path of the .npy features; empty = features come from the CSV
	Label string `json:"label"` // label column (integers 0..C-1); default "label"
	Env   string `json:"env"`   // environment column (integers or names); default "env"; optional in the file
	Group string `json:"group"` // group column (integers or names); default "group"; optional in the file
	Split string `json:"split"` // split column: train/val/test or 0/1/2; default "split"
	Attr  string `json:"attr"`  // spurious attribute column (integers); default "attr"; optional in the file
	ID    string `json:"id"`    // sample id column (integers); default "id"; optional (row number)
	// FeatureCols lists the feature columns, comma-separated; empty means
	// every column that is not an annotation (nor pandas' unnamed index).
	FeatureCols string `json:"feature_cols,omitempty"`

	// ValFraction, when above 0, carves a validation split of this
	// fraction of the training rows (per group, drawn with Seed) for a
	// file without val rows. Spec records it (Spec.ValFraction), not
	// the columns.
	ValFraction float64 `json:"-"`
	Seed        uint64  `json:"-"`
	// Lenient reads a file as runs recorded before its checks of a
	// column named twice, an id on two rows, an annotation among the
	// features and a flag's column missing were made (their Spec has no
	// Digest): such a run resumes on the data it was made with. Default
	// false: the checks refuse such a file.
	Lenient bool `json:"-"`
}

// DefaultFeatures returns the defaults documented on FeaturesConfig.
func DefaultFeatures() FeaturesConfig {
	return FeaturesConfig{Label: "label", Env: "env", Group: "group", Split: "split", Attr: "attr", ID: "id"}
}

// table is a CSV file read whole.
type table struct {
	path   string
	header []string
	index  map[string]int // each name's first column: every look-up by name is O(1)
	rows   [][]string
}

func readCSV(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	defer f.Close()
	t, err := parseCSV(f, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// maxCSVLine bounds a CSV line's length: one sample's annotations and
// features (400000 numbers written in full take about as much). A longer
// line is a file that is not one sample per line, refused as it is read
// rather than held whole.
const maxCSVLine = 8 << 20

// errLongLine is a line longer than maxCSVLine.
type errLongLine struct{ line int }

func (e errLongLine) Error() string {
	return fmt.Sprintf("line %d is longer than %d MiB; a CSV line holds one sample: check that the file is a CSV with one sample per line (a file with other line endings, or a quoted field left open, reads as one long line)", e.line, maxCSVLine>>20)
}

// lineLimit passes r on until a line grows longer than max bytes, then
// fails with errLongLine.
type lineLimit struct {
	r        io.Reader
	max, run int
	line     int // the current line, from 1
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			j = n - i
		}
		if l.run+j > l.max {
			return i + (l.max - l.run), errLongLine{l.line}
		}
		l.run += j
		i += j
		if i < n { // a newline
			l.line++
			l.run = 0
			i++
		}
	}
	return n, err
}

func parseCSV(r io.Reader, path string) (*table, error) {
	cr := csv.NewReader(&lineLimit{r: r, max: maxCSVLine, line: 1})
	cr.ReuseRecord = false
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("empty file; want a header line of column names")
	}
	if err != nil {
		return nil, err
	}
	t := &table{path: path, header: header}
	for i := range t.header {
		t.header[i] = strings.TrimSpace(strings.TrimPrefix(t.header[i], "\ufeff"))
	}
	t.reindex()
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
			return nil, fmt.Errorf("line %d has %d fields, the header %d: every row needs a value for each column", pe.StartLine, len(rec), len(t.header))
		}
		if err != nil {
			return nil, err
		}
		t.rows = append(t.rows, rec)
	}
	if len(t.rows) == 0 {
		return nil, fmt.Errorf("no data rows after the header")
	}
	return t, nil
}

// reindex maps each name of the header to its first column.
func (t *table) reindex() {
	t.index = make(map[string]int, len(t.header))
	for i := len(t.header) - 1; i >= 0; i-- {
		t.index[t.header[i]] = i
	}
}

// rename names column i name.
func (t *table) rename(i int, name string) {
	t.header[i] = name
	t.reindex()
}

func (t *table) col(name string) int {
	if t.index == nil { // a table built in place
		return slices.Index(t.header, name)
	}
	if c, ok := t.index[name]; ok {
		return c
	}
	return -1
}

func (t *table) need(name, what string) (int, error) {
	if c := t.col(name); c >= 0 {
		return c, nil
	}
	return -1, fmt.Errorf("%s: no %s column %q (columns: %s); name it with the matching flag", t.path, what, name, t.columns())
}

// columns lists the header's names for a message: the first few of a
// wide file, and how many more.
func (t *table) columns() string {
	const show = 12
	if len(t.header) <= show {
		return strings.Join(t.header, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(t.header[:show], ", "), len(t.header)-show)
}

func (t *table) int(row, col int, what string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(t.rows[row][col]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: line %d: %s %q is not an integer", t.path, row+2, what, t.rows[row][col])
	}
	return v, nil
}

// indexer maps integer or named categories to indices: integers map to
// themselves, names to their rank in sorted order.
func (t *table) categories(col int, what string) ([]int32, []string, error) {
	vals := make([]int32, len(t.rows))
	ints := true
	for r := range t.rows {
		v, err := strconv.Atoi(strings.TrimSpace(t.rows[r][col]))
		if err != nil || v < 0 {
			ints = false
			break
		}
		vals[r] = int32(v)
	}
	if ints {
		hi := slices.Max(vals)
		names := make([]string, hi+1)
		for i := range names {
			names[i] = fmt.Sprintf("%s=%d", what, i)
		}
		return vals, names, nil
	}
	rank := map[string]int32{}
	for r := range t.rows {
		rank[strings.TrimSpace(t.rows[r][col])] = 0
	}
	names := make([]string, 0, len(rank))
	for n := range rank {
		names = append(names, n)
	}
	slices.Sort(names)
	for i, n := range names {
		rank[n] = int32(i)
	}
	for r := range t.rows {
		vals[r] = rank[strings.TrimSpace(t.rows[r][col])]
	}
	return vals, names, nil
}

func splitOf(s string) int {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "train", "0":
		return 0
	case "val", "valid", "validation", "1":
		return 1
	case "test", "2":
		return 2
	}
	return -1
}

// Features loads a bring-your-own dataset.
func Features(c FeaturesConfig) (*Splits, error) {
	t, err := readCSV(c.CSV)
	if err != nil {
		return nil, err
	}
	n := len(t.rows)
	var x []float32
	d := 0
	if c.NPY != "" {
		shape, data, err := ReadNPYFile(c.NPY)
		if err != nil {
			return nil, err
		}
		if shape[0] != n {
			return nil, fmt.Errorf("%s has %d rows but %s has %d; they must describe the same samples in the same order", c.NPY, shape[0], c.CSV, n)
		}
		x, d = data, 1
		if len(shape) == 2 {
			d = shape[1]
		}
		if d == 0 {
			return nil, fmt.Errorf("%s has shape %v: no feature columns; save the N x D feature matrix, D at least 1", c.NPY, shape)
		}
	}
	return fromTable(t, c, x, d, "features", c.CSV)
}

// fromTable builds splits from an annotation table and features x (n x d)
// or, when x is nil, from the table's remaining numeric columns.
func fromTable(t *table, c FeaturesConfig, x []float32, d int, name, source string) (*Splits, error) {
	n := len(t.rows)
	if !c.Lenient {
		// A name twice would be read as one column and the other taken
		// for a feature (a second label column among the features).
		for i, h := range t.header {
			if j := t.col(h); j != i {
				return nil, fmt.Errorf("%s: column %q is named twice (columns %d and %d); give each column its own name", t.path, h, j+1, i+1)
			}
		}
	}
	lc, err := t.need(c.Label, "label")
	if err != nil {
		return nil, err
	}
	sc, err := t.need(c.Split, "split")
	if err != nil {
		return nil, err
	}
	used := []int{lc, sc}
	// pandas' df.to_csv() writes the index as a first column with an
	// empty name: an index, never a feature.
	index := -1
	if len(t.header) > 0 && t.header[0] == "" {
		index = 0
		used = append(used, 0)
	}
	y, labelNames, err := t.labels(lc)
	if err != nil {
		return nil, err
	}
	classes := int(slices.Max(y)) + 1
	def := DefaultFeatures()
	opt := func(col, what string, dflt func(r int) int32) ([]int32, []string, error) {
		ci := t.col(col)
		if !c.Lenient && ci < 0 && col != "" && col != map[string]string{"env": def.Env, "attr": def.Attr, "group": def.Group}[what] {
			// Named by its flag (not the default name): a typo, not a
			// column the file leaves out.
			return nil, nil, fmt.Errorf("%s: no %s column %q (columns: %s); --%s-col names it", t.path, what, col, t.columns(), what)
		}
		if col == "" || ci < 0 {
			v := make([]int32, n)
			for r := range v {
				v[r] = dflt(r)
			}
			return v, nil, nil
		}
		used = append(used, ci)
		return t.categories(ci, what)
	}
	env, envNames, err := opt(c.Env, "env", func(int) int32 { return 0 })
	if err != nil {
		return nil, err
	}
	if envNames == nil {
		envNames = []string{"all"}
	}
	attr, _, err := opt(c.Attr, "attr", func(int) int32 { return 0 })
	if err != nil {
		return nil, err
	}
	group, groupNames, err := opt(c.Group, "group", func(r int) int32 { return y[r] })
	if err != nil {
		return nil, err
	}
	if groupNames == nil {
		for k := 0; k < classes; k++ {
			groupNames = append(groupNames, fmt.Sprintf("y=%d", k))
		}
	}
	if !c.Lenient && c.ID != "" && c.ID != def.ID && t.col(c.ID) < 0 {
		return nil, fmt.Errorf("%s: no id column %q (columns: %s); --id-col names it", t.path, c.ID, t.columns())
	}
	ids, idCol, err := t.ids(c.ID, index)
	if err != nil {
		return nil, err
	}
	// The ids join the exported weights back to the rows: each once.
	var idWarning string
	if prev, r, repeated := repeatedID(ids); repeated && !c.Lenient {
		id := ids[r]
		if idCol < 0 { // pandas' index, restarted by a concat: the row numbers join instead
			for i := range ids {
				ids[i] = int64(i)
			}
			idWarning = fmt.Sprintf("%s: the unnamed index column pandas writes repeats (lines %d and %d: %d), so the ids are the row numbers, counted from 0 after the header; write the file with index=False or reset_index(), or name an id column with --id-col", t.path, prev+2, r+2, id)
		} else {
			return nil, fmt.Errorf("%s: lines %d and %d have the same id %d in column %q; ids join the exported weights back to the rows and must be unique: fix the column, or name another with --id-col", t.path, prev+2, r+2, id, t.header[idCol])
		}
	}
	if idCol >= 0 {
		used = append(used, idCol)
	}
	var names []string // the feature columns' names, for features from the CSV
	if x == nil {
		if x, d, names, err = t.features(c.FeatureCols, used, c.Lenient); err != nil {
			return nil, err
		}
	}
	// Where a value is, as people find it: a CSV column's name on its
	// line, else a .npy's row and column, counted from 0 as numpy does.
	where := func(i int) string {
		if names != nil {
			return fmt.Sprintf("%s: line %d, column %q", t.path, i/d+2, names[i%d])
		}
		file := c.NPY
		if file == "" { // images' features
			file = source
		}
		return fmt.Sprintf("%s: row %d, column %d (counted from 0)", file, i/d, i%d)
	}
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("%s is %v; clean or drop it", where(i), v)
		}
	}
	// Values this large make every model diverge (a float32 network's
	// products overflow), and the run would fail later, advising a lower
	// learning rate: refused here, with the advice that fits.
	if !c.Lenient {
		for i, v := range x {
			if math.Abs(float64(v)) >= maxFeature {
				return nil, fmt.Errorf("%s is %g, beyond ±%g, where training diverges: standardise the features (each column less its training mean, over its sd) and save the file again", where(i), v, maxFeature)
			}
		}
	}
	parts, err := t.splits(sc, c, group, name == "features")
	if err != nil {
		return nil, err
	}
	if err := t.classesInTraining(y, labelNames, classes, parts); err != nil {
		return nil, err
	}
	warnings := largeFeatures(x, d, func(j int) string {
		if names != nil {
			return fmt.Sprintf("column %q", names[j])
		}
		return fmt.Sprintf("feature %d", j)
	}, source)
	if idWarning != "" {
		warnings = append(warnings, idWarning)
	}
	all := &Dataset{Name: "all", N: n, D: d, Shape: Shape{C: d, H: 1, W: 1}, X: x, Y: y, Env: env, Group: group,
		Attr: attr, ID: ids, Classes: classes, EnvNames: envNames, GroupNames: groupNames, LabelNames: labelNames}
	split := splitInPlace(all, parts)
	sp := &Splits{Name: name, Source: source, Train: split[0], Val: split[1], Test: split[2], Warnings: warnings}
	return sp, sp.Validate()
}

// repeatedID returns the first row r whose id an earlier row prev has
// (0-based, as ids holds them).
func repeatedID(ids []int64) (prev, r int, ok bool) {
	seen := make(map[int64]int, len(ids))
	for r, id := range ids {
		if prev, ok := seen[id]; ok {
			return prev, r, true
		}
		seen[id] = r
	}
	return 0, 0, false
}

// splitInPlace returns the splits of all holding the rows parts[s], in
// that order. The features are not copied: all.X's rows are permuted in
// place (train, then val, then test) and each split's X is its part of
// that array, so that a large feature matrix is held once.
func splitInPlace(all *Dataset, parts [3][]int) [3]*Dataset {
	d := all.D
	order := make([]int, 0, all.N)
	for _, p := range parts {
		order = append(order, p...)
	}
	// Row k takes row order[k]: follow each cycle with one row aside.
	done := make([]bool, len(order))
	tmp := make([]float32, d)
	for k := range order {
		if done[k] || order[k] == k {
			done[k] = true
			continue
		}
		copy(tmp, all.X[k*d:(k+1)*d])
		j := k
		for {
			done[j] = true
			src := order[j]
			if src == k {
				copy(all.X[j*d:(j+1)*d], tmp)
				break
			}
			copy(all.X[j*d:(j+1)*d], all.X[src*d:(src+1)*d])
			j = src
		}
	}
	var out [3]*Dataset
	off := 0
	for s, nm := range []string{"train", "val", "test"} {
		m := len(parts[s])
		sub := &Dataset{Name: nm, N: m, D: d, Shape: all.Shape, Classes: all.Classes,
			EnvNames: all.EnvNames, GroupNames: all.GroupNames, LabelNames: all.LabelNames,
			X: all.X[off*d : (off+m)*d : (off+m)*d], Y: make([]int32, m), Env: make([]int32, m),
			Group: make([]int32, m), Attr: make([]int32, m), ID: make([]int64, m)}
		for j, i := range parts[s] {
			sub.Y[j], sub.Env[j], sub.Group[j], sub.Attr[j], sub.ID[j] = all.Y[i], all.Env[i], all.Group[i], all.Attr[i], all.ID[i]
		}
		out[s] = sub
		off += m
	}
	return out
}

// labels reads the label column lc: all integers 0..C-1, or all names
// (numbered in sorted order, the names returned). At least two classes.
func (t *table) labels(lc int) ([]int32, []string, error) {
	n := len(t.rows)
	y := make([]int32, n)
	var labelNames []string
	if _, err := t.int(0, lc, "label"); err == nil {
		for r := 0; r < n; r++ {
			v, err := t.int(r, lc, "label")
			if err != nil {
				return nil, nil, fmt.Errorf("%w (labels must be all integers 0..C-1 or all names)", err)
			}
			if v < 0 || v > 1000 {
				return nil, nil, fmt.Errorf("%s: line %d: label %d: want the classes numbered 0, 1, ... (at most 1000), or names", t.path, r+2, v)
			}
			y[r] = int32(v)
		}
	} else {
		var err error
		if y, labelNames, err = t.categories(lc, "label"); err != nil {
			return nil, nil, err
		}
	}
	if slices.Max(y) < 1 {
		return nil, nil, fmt.Errorf("%s: every label is %d; want at least two classes", t.path, y[0])
	}
	return y, labelNames, nil
}

// ids reads the sample ids: the id column when named and present, else
// pandas' index column (index >= 0), else the row numbers. col is the
// column read (-1 for none or the index, which is already set aside).
func (t *table) ids(name string, index int) (ids []int64, col int, err error) {
	ids = make([]int64, len(t.rows))
	ic := t.col(name)
	switch {
	case (name == "" || ic < 0) && index >= 0:
		for r := range ids {
			if ids[r], err = t.int(r, index, "index"); err != nil {
				return nil, -1, err
			}
		}
		return ids, -1, nil
	case name != "" && ic >= 0:
		for r := range ids {
			if ids[r], err = t.int(r, ic, "id"); err != nil {
				return nil, -1, err
			}
		}
		return ids, ic, nil
	}
	for r := range ids {
		ids[r] = int64(r)
	}
	return ids, -1, nil
}

// features reads the feature columns: those of cols (comma-separated
// names) or else every column not in used. It returns the n x d values
// and the columns' names.
func (t *table) features(cols string, used []int, lenient bool) ([]float32, int, []string, error) {
	var fc []int
	isUsed := make(map[int]bool, len(used))
	for _, u := range used {
		isUsed[u] = true
	}
	if cols != "" {
		for _, name := range strings.Split(cols, ",") {
			ci, err := t.need(strings.TrimSpace(name), "feature")
			if err != nil {
				return nil, 0, nil, fmt.Errorf("--feature-cols: %w", err)
			}
			if isUsed[ci] && !lenient {
				return nil, 0, nil, fmt.Errorf("--feature-cols: %s: column %q is an annotation (label, split, env, group, attr or id), not a feature: a model given the label or the groups learns them", t.path, t.header[ci])
			}
			fc = append(fc, ci)
		}
	} else {
		for i := range t.header {
			if !isUsed[i] {
				fc = append(fc, i)
			}
		}
	}
	if len(fc) == 0 {
		return nil, 0, nil, fmt.Errorf("%s: no feature columns besides the annotations; pass a .npy of features", t.path)
	}
	n, d := len(t.rows), len(fc)
	var names []string
	for _, ci := range fc {
		names = append(names, t.header[ci])
	}
	x := make([]float32, n*d)
	for r := 0; r < n; r++ {
		if len(t.rows[r]) != len(t.header) {
			return nil, 0, nil, fmt.Errorf("%s: line %d has %d fields, the header %d", t.path, r+2, len(t.rows[r]), len(t.header))
		}
		for j, ci := range fc {
			v, err := strconv.ParseFloat(strings.TrimSpace(t.rows[r][ci]), 32)
			if errors.Is(err, strconv.ErrRange) {
				return nil, 0, nil, fmt.Errorf("%s: line %d, column %q: %s is beyond float32's range (about ±3.4e38), in which maple computes: standardise the features (each column less its mean, over its sd) and save the file again", t.path, r+2, t.header[ci], strings.TrimSpace(t.rows[r][ci]))
			}
			if err != nil {
				return nil, 0, nil, fmt.Errorf("%s: line %d, column %q: %q is not a number", t.path, r+2, t.header[ci], t.rows[r][ci])
			}
			x[r*d+j] = float32(v)
		}
	}
	return x, d, names, nil
}

// splits returns the rows of the train, val and test splits by column
// sc, each non-empty. With c.ValFraction above 0 the validation rows are
// carved out of the training rows (see carve); features says the file is
// the features dataset's, whose flags the messages may name.
func (t *table) splits(sc int, c FeaturesConfig, group []int32, features bool) ([3][]int, error) {
	var parts [3][]int
	for r := range t.rows {
		s := splitOf(t.rows[r][sc])
		if s < 0 {
			return parts, fmt.Errorf("%s: line %d: split %q, want train, val or test (or 0, 1, 2)", t.path, r+2, t.rows[r][sc])
		}
		parts[s] = append(parts[s], r)
	}
	if c.ValFraction > 0 {
		if len(parts[1]) > 0 {
			return parts, fmt.Errorf("%s has %d val rows of its own; --val-fraction carves a validation split out of the training rows of a file without them: leave it out to use the file's", t.path, len(parts[1]))
		}
		train := parts[0]
		parts[0], parts[1] = carve(parts[0], group, c.ValFraction, c.Seed)
		if len(parts[1]) == 0 {
			return parts, fmt.Errorf("--val-fraction %g of %s's %d training rows leaves no validation row; raise it", c.ValFraction, t.path, len(parts[0]))
		}
		if !c.Lenient {
			// Validation selects on its worst group: a group of the
			// training rows with no validation row is never seen by it
			// (0.001 of 2000 rows left two groups without one).
			inVal := map[int32]bool{}
			for _, r := range parts[1] {
				inVal[group[r]] = true
			}
			for _, r := range train {
				if !inVal[group[r]] {
					return parts, fmt.Errorf("--val-fraction %g of %s's training rows leaves group %d with no validation row; raise it (each group needs about 1/F training rows for one)", c.ValFraction, t.path, group[r])
				}
			}
		}
	}
	for s, nm := range []string{"train", "val", "test"} {
		if len(parts[s]) == 0 {
			hint := ""
			if s == 1 && features {
				hint = ": mark some rows val, or pass --val-fraction F (say 0.2) to carve a validation split of that fraction out of the training rows"
			}
			return parts, fmt.Errorf("%s: no %s rows; every split needs samples%s", t.path, nm, hint)
		}
	}
	return parts, nil
}

// carve moves round(frac x size) of each group's training rows (never a
// group's last row) to validation, drawn with seed; both keep the file's
// order.
func carve(train []int, group []int32, frac float64, seed uint64) (keep, val []int) {
	byGroup := map[int32][]int{}
	var groups []int32
	for _, r := range train {
		if _, ok := byGroup[group[r]]; !ok {
			groups = append(groups, group[r])
		}
		byGroup[group[r]] = append(byGroup[group[r]], r)
	}
	slices.Sort(groups)
	rng := rand.New(rand.NewPCG(seed, 0x7a1))
	taken := map[int]bool{}
	for _, g := range groups {
		rows := byGroup[g]
		k := min(int(math.Round(frac*float64(len(rows)))), len(rows)-1)
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		for _, r := range rows[:k] {
			taken[r] = true
		}
	}
	for _, r := range train {
		if taken[r] {
			val = append(val, r)
		} else {
			keep = append(keep, r)
		}
	}
	return keep, val
}

// classesInTraining checks that the labels are the classes 0..K-1 with
// every class among the training rows: a class without training rows is
// a label the model can never learn (labels 1 and 2 make a class 0 of no
// samples), and a single class in training leaves nothing to learn.
func (t *table) classesInTraining(y []int32, names []string, classes int, parts [3][]int) error {
	count := make([]int, classes)
	for _, r := range parts[0] {
		count[y[r]]++
	}
	labelsOf := func(rows []int) string {
		var seen []string
		had := map[int32]bool{}
		for _, r := range rows {
			if had[y[r]] {
				continue
			}
			had[y[r]] = true
			v := fmt.Sprint(y[r])
			if names != nil {
				v = strconv.Quote(names[y[r]])
			}
			seen = append(seen, v)
		}
		slices.Sort(seen)
		return strings.Join(seen, ", ")
	}
	for k, n := range count {
		if n > 0 {
			continue
		}
		what := fmt.Sprintf("class %d", k)
		if names != nil {
			what += fmt.Sprintf(" (%q)", names[k])
		}
		return fmt.Errorf("%s: %s has no training rows (labels of the training rows: %s; of all rows: %s); labels must be the classes 0..K-1, each with rows in the train split: number the labels from 0 without gaps, and give every class training rows",
			t.path, what, labelsOf(parts[0]), labelsOf(slices.Concat(parts[0], parts[1], parts[2])))
	}
	return nil
}

// maxFeature is the magnitude from which a feature is refused: a float32
// network's squared gradients and second moments overflow near it (1e30
// diverged at the first step), and an int64 id or timestamp read as a
// feature (7e16) lands beyond it. Below it, from largeFeature, a warning.
const maxFeature = 1e15

// largeFeature is the magnitude above which a feature is worth a word:
// networks and their default learning rates expect standardised inputs.
const largeFeature = 1e6

// largeFeatures names the features (up to three, then a count) whose
// values reach largeFeature in magnitude, with their range.
func largeFeatures(x []float32, d int, name func(int) string, source string) []string {
	if d == 0 {
		return nil
	}
	lo, hi := make([]float32, d), make([]float32, d)
	for j := range lo {
		lo[j], hi[j] = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	for i, v := range x {
		j := i % d
		lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
	}
	var out []string
	more := 0
	for j := range lo {
		if math.Max(math.Abs(float64(lo[j])), math.Abs(float64(hi[j]))) < largeFeature {
			continue
		}
		if len(out) == 3 {
			more++
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s ranges over [%g, %g]; values this large make training diverge or saturate: standardise the features", source, name(j), lo[j], hi[j]))
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("%s: %d more features reach %g in magnitude", source, more, largeFeature))
	}
	return out
}

// featuresSource is a person's own table of labels, groups and features
// (Features).
type featuresSource struct{}

func (featuresSource) Name() string { return "features" }

func (featuresSource) Options() []string { return []string{"ValFraction", "Columns"} }

// defaultModel: a linear head, the head that suits a pretrained
// network's features (docs/EMBEDDINGS.md gives the evidence).
func (featuresSource) DefaultModel() string { return "linear" }

// embeddings: a person's features are taken for a network's embeddings.
func (featuresSource) Embeddings() bool { return true }

func (featuresSource) OptionHelp(option string) string {
	switch option {
	case "Features":
		return featuresHelp
	case "CSV":
		return "CSV with a header (features and/or label, env, group, split columns)"
	case "ValFraction":
		return "carve a validation split of this fraction of the training rows (per group, seeded) from a CSV without val rows (0 = the file's own val rows)"
	}
	return ""
}

func (featuresSource) Check(d Spec) error {
	if d.CSV == "" {
		return fmt.Errorf("--dataset features needs --csv FILE (and optionally --features FILE.npy)")
	}
	return nil
}

func (featuresSource) Load(d Spec, in LoadInput) (*Splits, error) {
	if err := (featuresSource{}).Check(d); err != nil {
		return nil, err
	}
	c := d.Columns
	c.CSV, c.NPY = d.CSV, d.Features
	c.ValFraction, c.Seed = d.ValFraction, in.Seed
	c.Lenient = d.Digest == "" // a run recorded before the checks
	return Features(c)
}
