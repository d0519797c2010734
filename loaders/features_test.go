package loaders

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const goodCSV = `id,f1,f2,label,env,group,split
10,0.5,1,0,a,0,train
11,1.5,2,1,b,1,train
12,2.5,3,1,a,1,val
13,3.5,4,0,b,0,test
14,4.5,5,1,b,1,test
`

// TestFeaturesColumnFlags: a column named by its flag that the file
// lacks is refused (a typo of --env-col ran with no envs, the real env
// column among the features), while a file without the default-named
// optional columns reads; an annotation cannot be a feature (--feature-cols
// f1,label gave a test worst-group of 1).
func TestFeaturesColumnFlags(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "t.csv"), goodCSV)
	for _, tc := range []struct {
		name string
		set  func(*FeaturesConfig)
		want string
	}{
		{"env typo", func(c *FeaturesConfig) { c.Env = "domian" }, `no env column "domian"`},
		{"attr typo", func(c *FeaturesConfig) { c.Attr = "plcae" }, `no attr column "plcae"`},
		{"group typo", func(c *FeaturesConfig) { c.Group = "grp" }, `no group column "grp"`},
		{"id typo", func(c *FeaturesConfig) { c.ID = "img" }, `no id column "img"`},
		{"the label as a feature", func(c *FeaturesConfig) { c.FeatureCols = "f1,label" }, `column "label" is an annotation`},
		{"the group as a feature", func(c *FeaturesConfig) { c.FeatureCols = "group,f2" }, `column "group" is an annotation`},
		{"defaults, attr absent", func(*FeaturesConfig) {}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultFeatures()
			c.CSV = path
			tc.set(&c)
			_, err := Features(c)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "t.csv")) {
				t.Errorf("error %v, want %q naming t.csv", err, tc.want)
			}
		})
	}
}

func TestFeaturesCSV(t *testing.T) {
	dir := t.TempDir()
	c := DefaultFeatures()
	c.CSV = writeFile(t, filepath.Join(dir, "t.csv"), goodCSV)
	s, err := Features(c)
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.N != 2 || s.Val.N != 1 || s.Test.N != 2 || s.Train.D != 2 {
		t.Fatalf("sizes %d %d %d dim %d", s.Train.N, s.Val.N, s.Test.N, s.Train.D)
	}
	if s.Test.ID[1] != 14 || s.Test.X[2] != 4.5 || s.Test.X[3] != 5 || s.Train.Env[1] != 1 || s.Train.EnvNames[1] != "b" {
		t.Errorf("test row: id %d x %v env %v", s.Test.ID, s.Test.X, s.Train.EnvNames)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings on ordinary features: %q", s.Warnings)
	}
	// Features of 2e9 train, but not without a word naming the column.
	c.CSV = writeFile(t, filepath.Join(dir, "big.csv"), strings.Replace(goodCSV, "11,1.5,2,1", "11,1.5,2e9,1", 1))
	if big, err := Features(c); err != nil || len(big.Warnings) != 1 || !strings.Contains(big.Warnings[0], `column "f2" ranges over [1, 2e+09]`) {
		t.Errorf("large values: %v %q", err, big.Warnings)
	}
	bad := []struct{ name, csv, want string }{
		{"no label", strings.Replace(goodCSV, "label", "lab", 1), `no label column "label"`},
		{"label out of range", strings.Replace(goodCSV, "0.5,1,0,a", "0.5,1,-3,a", 1), "label -3: want the classes numbered 0, 1, ..."},
		{"nan", strings.Replace(goodCSV, "0.5,1,0", "NaN,1,0", 1), `line 2, column "f1" is NaN`},
		{"out of float32's range", strings.Replace(goodCSV, "0.5,1,0", "1e300,1,0", 1), `line 2, column "f1": 1e300 is beyond float32's range`},
		{"1e30", strings.Replace(goodCSV, "0.5,1,0", "1e30,1,0", 1), `line 2, column "f1" is 1e+30, beyond ±1e+15, where training diverges: standardise the features`},
		{"an int64 near 7e16", strings.Replace(goodCSV, "11,1.5,2,1", "11,1.5,70000000000000017,1", 1), `line 3, column "f2" is 7e+16`},
		{"not a number", strings.Replace(goodCSV, "0.5,1,0", "x,1,0", 1), `"x" is not a number`},
		{"bad split", strings.Replace(goodCSV, "val\n", "dev\n", 1), `split "dev"`},
		{"empty split", strings.Replace(goodCSV, "val\n", "train\n", 1), "no val rows"},
		{"short row", strings.Replace(goodCSV, "10,0.5,1,0,a,0,train", "10,0.5,1,0,a,0", 1), "line 2 has 6 fields, the header 7"},
		{"empty", "", "empty file"},
		{"one class", strings.ReplaceAll(goodCSV, ",1,", ",0,"), "two classes"},
		// A second label column was taken for a feature.
		{"a column named twice", strings.Replace(goodCSV, "id,f1,f2", "id,f1,label", 1), `column "label" is named twice (columns 3 and 4)`},
		// The exported ids would join two rows to one weight.
		{"an id twice", strings.Replace(goodCSV, "11,1.5", "10,1.5", 1), "lines 2 and 3 have the same id 10"},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			c.CSV = writeFile(t, filepath.Join(dir, "bad.csv"), b.csv)
			_, err := Features(c)
			if err == nil || !strings.Contains(err.Error(), b.want) || !strings.Contains(err.Error(), "bad.csv") {
				t.Errorf("error %v, want one naming bad.csv and %q", err, b.want)
			}
		})
	}
}

func writeNPY2(t *testing.T, path string, rows, cols int, f func(r, c int) float64) {
	t.Helper()
	m := mat.NewDense(rows, cols, nil)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			m.Set(r, c, f(r, c))
		}
	}
	var b bytes.Buffer
	if err := npy.Write(&b, m); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, b.String())
}

func TestFeaturesNPY(t *testing.T) {
	dir := t.TempDir()
	c := DefaultFeatures()
	c.CSV = writeFile(t, filepath.Join(dir, "a.csv"), "label,split,group\n0,train,0\n1,train,1\n0,val,0\n1,test,1\n")
	c.NPY = filepath.Join(dir, "x.npy")
	writeNPY2(t, c.NPY, 4, 3, func(r, c int) float64 { return float64(10*r + c) })
	s, err := Features(c)
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.D != 3 || s.Test.X[0] != 30 || s.Test.X[2] != 32 {
		t.Errorf("features %v", s.Test.X)
	}
	writeNPY2(t, c.NPY, 3, 3, func(r, c int) float64 { return 0 })
	if _, err := Features(c); err == nil || !strings.Contains(err.Error(), "same samples") {
		t.Errorf("row mismatch: %v", err)
	}
	for _, tc := range []struct {
		name  string
		write func()
		want  string
	}{
		{"1000 bytes after the array", func() {
			writeNPY2(t, c.NPY, 4, 3, func(r, c int) float64 { return 1 })
			f, _ := os.OpenFile(c.NPY, os.O_WRONLY|os.O_APPEND, 0)
			f.Write(make([]byte, 1000))
			f.Close()
		}, "x.npy: shape [4 3] of <f8 needs 96 bytes of data, and the file holds 1000 more bytes after them"},
		{"no columns", func() {
			dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 0), }"
			dict += strings.Repeat(" ", 63-(10+len(dict))%64) + "\n"
			writeFile(t, c.NPY, "\x93NUMPY\x01\x00"+string([]byte{byte(len(dict)), 0})+dict)
		}, "x.npy has shape [4 0]: no feature columns"},
		{"1e30", func() { writeNPY2(t, c.NPY, 4, 3, func(r, c int) float64 { return float64(r*c) * 1e30 }) }, "x.npy: row 1, column 1 (counted from 0) is 1e+30"},
		{"a float64 beyond float32's range", func() {
			writeNPY2(t, c.NPY, 4, 3, func(r, c int) float64 { return map[bool]float64{true: 1e300}[r == 2 && c == 1] })
		}, "x.npy: row 2, column 1 (counted from 0) is 1e+300, beyond float32's range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.write()
			if _, err := Features(c); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestNPYRoundTripAndBadInput(t *testing.T) {
	var b bytes.Buffer
	if err := WriteNPY(&b, []float32{1, 2.5, -3}); err != nil {
		t.Fatal(err)
	}
	raw := b.Bytes()
	if !bytes.HasPrefix(raw, []byte("\x93NUMPY\x01\x00")) || !bytes.Contains(raw, []byte("'descr': '<f4'")) || !bytes.Contains(raw, []byte("'fortran_order': False")) {
		t.Errorf("header %q is not a version 1.0 little-endian C-order header", raw[:60])
	}
	if (len(raw)-3*4)%64 != 0 {
		t.Errorf("header length %d is not 64-aligned", len(raw)-12)
	}
	shape, data, err := ReadNPY(bytes.NewReader(raw))
	if err != nil || len(shape) != 1 || shape[0] != 3 || data[1] != 2.5 {
		t.Fatalf("round trip: %v %v %v", shape, data, err)
	}
	var b64 bytes.Buffer
	WriteNPY(&b64, []float64{math.Pi})
	if _, d, err := ReadNPY(&b64); err != nil || d[0] != float32(math.Pi) {
		t.Errorf("float64: %v %v", d, err)
	}
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "not a .npy"},
		{"text", []byte("hello world, this is not numpy"), "not a .npy"},
		{"truncated", raw[:len(raw)-5], "truncated"},
		{"fortran", bytes.Replace(raw, []byte("False, "), []byte("True,  "), 1), "fortran"},
		{"complex", bytes.Replace(raw, []byte("<f4"), []byte("<c8"), 1), "element type"},
		{"negative shape", bytes.Replace(raw, []byte("(3,)"), []byte("(-3,)")[:4], 1), "negative dimension"},
		{"trailing bytes", append(append([]byte(nil), raw...), make([]byte, 1000)...), "holds more bytes after them"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := ReadNPY(bytes.NewReader(c.in)); err == nil || !strings.Contains(strings.ToLower(err.Error()), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

func FuzzReadNPY(f *testing.F) {
	var b bytes.Buffer
	WriteNPY(&b, []float32{1, 2, 3})
	f.Add(b.Bytes())
	f.Add([]byte("\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }"))
	f.Fuzz(func(t *testing.T, in []byte) {
		shape, data, err := ReadNPY(bytes.NewReader(in))
		if err != nil {
			return
		}
		n := 1
		for _, d := range shape {
			n *= d
		}
		if n != len(data) {
			t.Fatalf("shape %v, %d values", shape, len(data))
		}
	})
}

func FuzzParseCSV(f *testing.F) {
	f.Add(goodCSV)
	f.Add("a,b\n\"x,1\n")
	f.Fuzz(func(t *testing.T, in string) {
		tb, err := parseCSV(strings.NewReader(in), "fuzz.csv")
		if err != nil {
			return
		}
		c := DefaultFeatures()
		fromTable(tb, c, nil, 0, "fuzz", "fuzz.csv") // must not panic
	})
}

func writeImage(t *testing.T, path string, w, h int, col color.RGBA) {
	t.Helper()
	im := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			im.Set(x, y, col)
		}
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if strings.HasSuffix(path, ".png") {
		png.Encode(f, im)
	} else {
		jpeg.Encode(f, im, &jpeg.Options{Quality: 100})
	}
}

func TestWaterbirds(t *testing.T) {
	dir := t.TempDir()
	meta := "img_id,img_filename,y,split,place,place_filename\n"
	for i := 0; i < 12; i++ {
		name := fmt.Sprintf("%03d.Bird/img_%d.jpg", i%3, i)
		if i%4 == 0 {
			name = strings.Replace(name, ".jpg", ".png", 1)
		}
		writeImage(t, filepath.Join(dir, name), 40+i, 30, color.RGBA{uint8(20 * i), 100, 200, 255})
		meta += fmt.Sprintf("%d,%s,%d,%d,%d,/x/y.jpg\n", 100+i, name, i%2, i%3, (i/2)%2)
	}
	writeFile(t, filepath.Join(dir, "metadata.csv"), meta)
	s, err := Waterbirds(ImageConfig{Dir: dir, Size: 8})
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.N != 4 || s.Train.Shape != (Shape{C: 3, H: 8, W: 8}) || s.Train.ID[1] != 103 {
		t.Fatalf("n %d shape %v ids %v", s.Train.N, s.Train.Shape, s.Train.ID)
	}
	// Sample id 103: y 1, place 1 -> group 3; its red channel is 60/255.
	row := s.Train.Row(1)
	if s.Train.Group[1] != 3 || math.Abs(float64(row[0]-60.0/255)) > 0.02 || math.Abs(float64(row[64]-100.0/255)) > 0.02 {
		t.Errorf("group %d pixels %v %v", s.Train.Group[1], row[0], row[64])
	}
	np := filepath.Join(dir, "emb.npy")
	writeNPY2(t, np, 12, 5, func(r, c int) float64 { return float64(r) })
	s2, err := Waterbirds(ImageConfig{Dir: dir, Features: np})
	if err != nil || s2.Train.D != 5 || s2.Train.X[5] != 3 {
		t.Errorf("embeddings: %v", err)
	}
	os.Remove(filepath.Join(dir, "001.Bird/img_1.jpg"))
	if _, err := Waterbirds(ImageConfig{Dir: dir, Size: 8}); err == nil || !strings.Contains(err.Error(), "img_1.jpg") {
		t.Errorf("missing image: %v", err)
	}
}

func TestCelebA(t *testing.T) {
	dir := t.TempDir()
	attr := "6\nBald Blond_Hair Male Young\n"
	part := ""
	for i := 1; i <= 6; i++ {
		name := fmt.Sprintf("%06d.jpg", i)
		writeImage(t, filepath.Join(dir, "img_align_celeba", name), 20, 24, color.RGBA{10, 20, 30, 255})
		blond, male := []string{"-1", "1"}[i%2], []string{"-1", "1"}[(i/2)%2]
		attr += fmt.Sprintf("%s -1 %s %s 1\n", name, blond, male)
		part += fmt.Sprintf("%s %d\n", name, i%3)
	}
	writeFile(t, filepath.Join(dir, "list_attr_celeba.txt"), attr)
	writeFile(t, filepath.Join(dir, "list_eval_partition.txt"), part)
	s, err := CelebA(ImageConfig{Dir: dir, Size: 4})
	if err != nil {
		t.Fatal(err)
	}
	// Train rows are images 3 and 6: 3 blond (1), male (1); 6 not blond, male.
	if s.Train.N != 2 || s.Train.ID[0] != 3 || s.Train.Y[0] != 1 || s.Train.Attr[0] != 1 || s.Train.Group[0] != 3 || s.Train.Group[1] != 1 {
		t.Errorf("train ids %v y %v attr %v group %v", s.Train.ID, s.Train.Y, s.Train.Attr, s.Train.Group)
	}
	writeFile(t, filepath.Join(dir, "list_attr_celeba.txt"), "6\nBald Male\n000001.jpg 1 1\n")
	if _, err := CelebA(ImageConfig{Dir: dir, Size: 4}); err == nil || !strings.Contains(err.Error(), "Blond_Hair") {
		t.Errorf("missing attribute: %v", err)
	}
}

// TestFeaturesAsPandasWrites: df.to_csv() with its unnamed index column
// (an index, not a feature), named string labels (numbered in sorted
// order, names kept), --feature-cols, and a Fortran-order .npy.
func TestFeaturesAsPandasWrites(t *testing.T) {
	dir := t.TempDir()
	c := DefaultFeatures()
	c.CSV = writeFile(t, filepath.Join(dir, "p.csv"), `,f1,f2,label,env,group,split
100,0.5,1,cat,a,0,train
101,1.5,2,dog,b,1,train
102,2.5,3,dog,a,1,val
103,3.5,4,cat,b,0,test
104,4.5,5,dog,b,1,test
`)
	s, err := Features(c)
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.D != 2 || s.Train.ID[0] != 100 || s.Test.ID[1] != 104 {
		t.Errorf("the index became a feature or lost its ids: dim %d ids %v %v", s.Train.D, s.Train.ID, s.Test.ID)
	}
	if fmt.Sprint(s.Train.LabelNames) != "[cat dog]" || fmt.Sprint(s.Train.Y) != "[0 1]" {
		t.Errorf("string labels: names %v y %v", s.Train.LabelNames, s.Train.Y)
	}
	c.FeatureCols = "f2"
	if s, err := Features(c); err != nil || s.Train.D != 1 || s.Train.X[0] != 1 {
		t.Errorf("--feature-cols f2: %v", err)
	}
	c.FeatureCols = "nope"
	if _, err := Features(c); err == nil || !strings.Contains(err.Error(), "--feature-cols") {
		t.Errorf("unknown feature column: %v", err)
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skip("no python3 with numpy for the Fortran-order file")
	}
	npyPath := filepath.Join(dir, "f.npy")
	if out, err := exec.Command(py, "-c", "import numpy as np,sys; np.save(sys.argv[1], np.asfortranarray(np.arange(10,dtype=np.float64).reshape(5,2)))", npyPath).CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	shape, data, err := ReadNPYFile(npyPath)
	if err != nil || fmt.Sprint(shape, data) != "[5 2] [0 1 2 3 4 5 6 7 8 9]" {
		t.Errorf("Fortran-order .npy read as %v %v %v", shape, data, err)
	}
}

// TestDigest: a run's own files are fingerprinted when it is created,
// and a load of files changed since is refused (a sweep rerun on a
// rewritten CSV said "done already" with the old results, and a search
// made on the old features was taken for the new ones); published data
// have none.
func TestDigest(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "t.csv"), goodCSV)
	d := DefaultSpec("features")
	d.CSV = path
	d = d.WithDigest()
	if len(d.Digest) != 64 {
		t.Fatalf("digest %q, want 64 hex digits", d.Digest)
	}
	if _, err := d.Load(1, nil); err != nil {
		t.Fatalf("the same files: %v", err)
	}
	writeFile(t, path, strings.Replace(goodCSV, "0.5,1,0", "0.6,1,0", 1))
	if _, err := d.Load(1, nil); err == nil || !strings.Contains(err.Error(), path+" changed since the run was created") {
		t.Errorf("changed files: %v", err)
	}
	if again := d.WithDigest(); again.Digest == d.Digest {
		t.Error("a changed file has the same digest")
	}
	if s := DefaultSpec("synthetic").WithDigest(); s.Digest != "" {
		t.Errorf("synthetic data have a digest %q", s.Digest)
	}
}

// TestOldRunsReadLeniently: a run recorded before the checks of a file
// (its spec has no digest) reads a file they refuse as it did, so that
// it resumes on its own data; a new run's spec is refused it.
func TestOldRunsReadLeniently(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "t.csv"), strings.Replace(goodCSV, "11,1.5", "10,1.5", 1)) // an id twice
	d := DefaultSpec("features")
	d.CSV = path
	if _, err := d.Load(1, nil); err != nil {
		t.Errorf("a run recorded before the checks: %v", err)
	}
	if _, err := d.WithDigest().Load(1, nil); err == nil || !strings.Contains(err.Error(), "same id 10") {
		t.Errorf("a new run: %v, want the repeated id refused", err)
	}
}

// TestPandasIndexRepeats: a CSV whose unnamed pandas index repeats (a
// concat of frames) is read with the row numbers as ids and a warning
// saying so and what to do, not refused.
func TestPandasIndexRepeats(t *testing.T) {
	csv := ",f1,f2,label,split\n0,0.5,1,0,train\n1,1.5,2,1,train\n0,2.5,3,1,val\n0,3.5,4,0,test\n1,4.5,5,1,test\n"
	c := DefaultFeatures()
	c.CSV = writeFile(t, filepath.Join(t.TempDir(), "p.csv"), csv)
	s, err := Features(c)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.Train.ID, s.Val.ID, s.Test.ID) != "[0 1] [2] [3 4]" {
		t.Errorf("ids %v %v %v, want the row numbers", s.Train.ID, s.Val.ID, s.Test.ID)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "index=False") {
		t.Errorf("warnings %q", s.Warnings)
	}
}

// wideCSV writes a CSV of d feature columns and rows rows (labels 0 and
// 1, split train, val and test in turn).
func wideCSV(t testing.TB, d, rows int) string {
	var b strings.Builder
	b.WriteString("label,split")
	for j := range d {
		fmt.Fprintf(&b, ",f%d", j)
	}
	b.WriteByte('\n')
	for r := range rows {
		fmt.Fprintf(&b, "%d,%s", r%2, []string{"train", "train", "val", "val", "test", "test"}[r%6])
		b.WriteString(strings.Repeat(",0.5", d))
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "wide.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFeaturesWideHeader: every check of a CSV is linear in its columns
// and rows: a header of 1,000,000 columns is read in seconds (the check
// of a column named twice took 21 CPU-minutes without ending; 200,000
// columns took more than 20 s); a name twice among them is still found,
// and a missing column's message lists a few columns, not a million.
// The bound is far above the seconds it takes on a loaded machine and
// far below the quadratic checks' minutes.
func TestFeaturesWideHeader(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 10 MB CSV")
	}
	const d = 1_000_000
	path := wideCSV(t, d, 6)
	t0 := time.Now()
	c := DefaultFeatures()
	c.CSV = path
	sp, err := Features(c)
	if el := time.Since(t0); el > 60*time.Second {
		t.Errorf("%d columns took %v", d, el)
	}
	if err != nil || sp.Train.D != d {
		t.Fatalf("%v; want %d features", err, d)
	}
	// A name twice, at the end.
	b, _ := os.ReadFile(path)
	head, rest, _ := strings.Cut(string(b), "\n")
	twice := filepath.Join(t.TempDir(), "twice.csv")
	os.WriteFile(twice, []byte(strings.Replace(head, fmt.Sprintf(",f%d", d-1), ",f7", 1)+"\n"+rest), 0o600)
	c.CSV = twice
	if _, err := Features(c); err == nil || !strings.Contains(err.Error(), `column "f7" is named twice (columns 10 and 1000002)`) {
		t.Errorf("a name twice: %v", err)
	}
	c.CSV, c.Env = path, "domain"
	_, err = Features(c)
	if err == nil || !strings.Contains(err.Error(), "and 999990 more") || len(err.Error()) > 1000 {
		t.Errorf("a missing column: %.300v (%d bytes), want a short list of the columns", err, len(fmt.Sprint(err)))
	}
}

// BenchmarkFeaturesWideHeader reads a CSV of 200,000 columns.
func BenchmarkFeaturesWideHeader(b *testing.B) {
	path := wideCSV(b, 200_000, 6)
	c := DefaultFeatures()
	c.CSV = path
	for b.Loop() {
		if _, err := Features(c); err != nil {
			b.Fatal(err)
		}
	}
}
