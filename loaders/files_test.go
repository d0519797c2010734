package loaders

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedData finds ../shared/data (or $MAPLE_DATA_DIR) or skips.
func sharedData(t testing.TB) string {
	t.Helper()
	for _, d := range []string{os.Getenv("MAPLE_DATA_DIR"), "../../shared/data"} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "mnist", MNISTTrainImages.Name)); err == nil {
			return d
		}
	}
	t.Skip("MNIST files not found in $MAPLE_DATA_DIR or ../../shared/data; see shared/data/MANIFEST.txt")
	return ""
}

func idxBytes(t testing.TB, dims []int, data []byte, gz bool) []byte {
	var b bytes.Buffer
	var w io.Writer = &b
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&b)
		w = zw
	}
	if err := WriteIDX(w, dims, data); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		zw.Close()
	}
	return b.Bytes()
}

func TestReadIDX(t *testing.T) {
	data := []byte{1, 2, 3, 4, 5, 6}
	for _, gz := range []bool{false, true} {
		x, err := ReadIDX(bytes.NewReader(idxBytes(t, []int{2, 3}, data, gz)))
		if err != nil {
			t.Fatal(err)
		}
		if len(x.Dims) != 2 || x.Dims[0] != 2 || x.Dims[1] != 3 || !bytes.Equal(x.Data, data) {
			t.Errorf("gzip %v: got %v %v", gz, x.Dims, x.Data)
		}
	}
	good := idxBytes(t, []int{2, 3}, data, false)
	gzGood := idxBytes(t, []int{2, 3}, data, true)
	corrupt := bytes.Clone(gzGood)
	corrupt[len(corrupt)-6] ^= 0xff // the CRC
	cases := []struct {
		name, in, want string
	}{
		{"empty", "", "truncated"},
		{"bad magic", "\x01\x02\x08\x01\x00\x00\x00\x01x", "not an IDX"},
		{"float type", "\x00\x00\x0d\x01\x00\x00\x00\x01xxxx", "element type"},
		{"rank 0", "\x00\x00\x08\x00", "rank"},
		{"huge", "\x00\x00\x08\x02\xff\xff\xff\xff\xff\xff\xff\xff", "larger than"},
		{"truncated data", string(good[:len(good)-2]), "truncated"},
		{"trailing data", string(good) + "zz", "more data"},
		{"truncated gzip", string(gzGood[:len(gzGood)/2]), "truncated"},
		{"bad crc", string(corrupt), "gzip"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadIDX(strings.NewReader(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

func FuzzReadIDX(f *testing.F) {
	f.Add(idxBytes(f, []int{2, 3}, []byte{1, 2, 3, 4, 5, 6}, false))
	f.Add(idxBytes(f, []int{1, 2, 2}, []byte{1, 2, 3, 4}, true))
	f.Add([]byte("\x00\x00\x08\x01\x00\x00\x00\x03abc"))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := ReadIDX(bytes.NewReader(b))
		if err != nil {
			return
		}
		size := 1
		for _, d := range x.Dims {
			size *= d
		}
		if size != len(x.Data) {
			t.Fatalf("dims %v but %d bytes", x.Dims, len(x.Data))
		}
	})
}

func TestDataDir(t *testing.T) {
	t.Setenv("MAPLE_DATA_DIR", "/from/env")
	if d, _ := DataDir("/from/flag"); d != "/from/flag" {
		t.Errorf("flag: %s", d)
	}
	if d, _ := DataDir(""); d != "/from/env" {
		t.Errorf("env: %s", d)
	}
	t.Setenv("MAPLE_DATA_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "/cache")
	if d, _ := DataDir(""); d != "/cache/maple" {
		t.Errorf("cache: %s", d)
	}
}

// TestFetch serves the real MNIST label files from shared/data over a
// local server: a good download, a corrupted file, a dropped connection.
func TestFetch(t *testing.T) {
	src := sharedData(t)
	good, err := os.ReadFile(filepath.Join(src, "mnist", MNISTTestLabels.Name))
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	bad[100] ^= 1
	mux := http.NewServeMux()
	mux.HandleFunc("/good/", func(w http.ResponseWriter, r *http.Request) { w.Write(good) })
	mux.HandleFunc("/bad/", func(w http.ResponseWriter, r *http.Request) { w.Write(bad) })
	mux.HandleFunc("/missing/", http.NotFound)
	mux.HandleFunc("/drop/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "4542")
		w.WriteHeader(http.StatusOK)
		w.Write(good[:1000])
		w.(http.Flusher).Flush()
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.(*net.TCPConn).SetLinger(0)
		conn.Close()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	fetch := func(mirrors ...string) (string, string, error) {
		dir := t.TempDir()
		f := MNISTTestLabels
		f.Mirrors = nil
		for _, m := range mirrors {
			f.Mirrors = append(f.Mirrors, srv.URL+"/"+m+"/")
		}
		var log bytes.Buffer
		p, err := (&Fetcher{Dir: dir, Progress: &log}).Path(f)
		return p, dir, err
	}
	t.Run("good", func(t *testing.T) {
		p, _, err := fetch("good")
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); !bytes.Equal(got, good) {
			t.Error("downloaded file differs")
		}
	})
	t.Run("fallback to second mirror", func(t *testing.T) {
		if _, _, err := fetch("missing", "good"); err != nil {
			t.Fatal(err)
		}
	})
	for _, c := range []struct{ mirror, want string }{{"bad", "SHA-256"}, {"drop", "connection lost"}, {"missing", "404"}} {
		t.Run(c.mirror, func(t *testing.T) {
			_, dir, err := fetch(c.mirror)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), MNISTTestLabels.Name) {
				t.Fatalf("error %v, want one naming the file and %q", err, c.want)
			}
			if !errors.Is(err, ErrDownload) {
				t.Errorf("error %v is not an ErrDownload (a failure, exit 1, not bad input)", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "mnist")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("left behind the folder mnist/ (%v)", err)
			}
		})
	}
	t.Run("a folder that was there stays", func(t *testing.T) {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "mnist"), 0o755)
		f := MNISTTestLabels
		f.Mirrors = []string{srv.URL + "/missing/"}
		if _, err := (&Fetcher{Dir: dir}).Path(f); err == nil {
			t.Fatal("no error")
		}
		if _, err := os.Stat(filepath.Join(dir, "mnist")); err != nil {
			t.Errorf("the folder the person made is gone: %v", err)
		}
	})
	t.Run("offline", func(t *testing.T) {
		_, err := (&Fetcher{Dir: t.TempDir(), Offline: true}).Path(MNISTTestLabels)
		if err == nil || !strings.Contains(err.Error(), "missing") {
			t.Errorf("error %v", err)
		}
	})
}

func TestCMNIST(t *testing.T) {
	fe := &Fetcher{Dir: sharedData(t), Offline: true}
	s, err := CMNIST(fe, DefaultCMNIST())
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.N != 45000 || s.Val.N != 5000 || s.Test.N != 10000 || s.Train.D != 392 {
		t.Fatalf("sizes %d %d %d dim %d", s.Train.N, s.Val.N, s.Test.N, s.Train.D)
	}
	sum := Describe(s)
	want := []float64{0.9, 0.8}
	for _, e := range sum.Splits[0].Envs[:2] {
		w := want[0]
		if strings.HasPrefix(e.Env, "train1") {
			w = want[1]
		}
		if math.Abs(e.Agreement-w) > 0.01 {
			t.Errorf("%s agreement %.3f, want %.2f", e.Env, e.Agreement, w)
		}
	}
	if a := sum.Splits[2].Envs[0].Agreement; math.Abs(a-0.1) > 0.01 {
		t.Errorf("test agreement %.3f, want 0.1", a)
	}
	for _, sp := range sum.Splits {
		if math.Abs(sp.LabelNoise-0.25) > 0.015 {
			t.Errorf("%s label noise %.3f, want 0.25", sp.Split, sp.LabelNoise)
		}
	}
	// Pixels: exactly one channel lit, matching the colour, values in [0,1],
	// and the lit channel is the 14x14 subsample of the MNIST image.
	im, _ := loadIDXPair(fe, MNISTTrainImages, MNISTTrainLabels)
	for _, i := range []int{0, 1, 1234, 44999} {
		row, c := s.Train.Row(i), s.Train.Attr[i]
		id := int(s.Train.ID[i])
		for p := 0; p < 196; p++ {
			h, w := p/14, p%14
			want := float32(im.pix[id*784+2*h*28+2*w]) / 255
			if row[int(c)*196+p] != want || row[int(1-c)*196+p] != 0 {
				t.Fatalf("sample %d (MNIST %d) pixel %d wrong", i, id, p)
			}
		}
		clean := int32(0)
		if im.labels[id] < 5 {
			clean = 1
		}
		if s.Train.CleanY[i] != clean {
			t.Fatalf("sample %d: clean label %d for digit %d", i, s.Train.CleanY[i], im.labels[id])
		}
	}
	// Oracle: same labels, colour uninformative.
	if !equalInt32(s.Oracle.Train.Y, s.Train.Y) {
		t.Error("oracle labels differ")
	}
	for _, e := range Describe(s.Oracle).Splits[0].Envs {
		if math.Abs(e.Agreement-0.5) > 0.015 {
			t.Errorf("oracle %s agreement %.3f", e.Env, e.Agreement)
		}
	}
	small := DefaultCMNIST()
	small.TrainSize = 2500
	s2, err := CMNIST(fe, small)
	if err != nil || s2.Train.N != 2500 || s2.Val.N != 5000 {
		t.Errorf("ColoredMNIST-2500: %v", err)
	}
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func BenchmarkLoadCMNIST(b *testing.B) {
	fe := &Fetcher{Dir: sharedData(b), Offline: true}
	for i := 0; i < b.N; i++ {
		if _, err := CMNIST(fe, DefaultCMNIST()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCMNISTEnvs: the IRM code shuffles the 50000 images before it
// alternates them between the two training envs. The MNIST file
// alternates writer populations with the index, so the unshuffled parity
// split (maple's construction before) gave envs that differ in stroke
// width (mean ink 0.122 vs 0.140), besides colour; the default split
// must not, and parity must still rebuild the data of runs made with it.
func TestCMNISTEnvs(t *testing.T) {
	fe := &Fetcher{Dir: sharedData(t), Offline: true}
	ink := func(c CMNISTConfig) (gap float64, s *Splits) {
		s, err := CMNIST(fe, c)
		if err != nil {
			t.Fatal(err)
		}
		var sum [2]float64
		var n [2]int
		for i := 0; i < s.Train.N; i++ {
			e := s.Train.Env[i]
			for _, v := range s.Train.Row(i) {
				sum[e] += float64(v)
			}
			n[e]++
		}
		return math.Abs(sum[0]/float64(n[0])-sum[1]/float64(n[1])) / 196, s
	}
	c := DefaultCMNIST()
	if c.Envs != EnvsShuffle {
		t.Fatalf("default env split %q, want %q", c.Envs, EnvsShuffle)
	}
	gap, s := ink(c)
	if gap > 0.003 {
		t.Errorf("shuffled envs differ in mean ink by %.4f per pixel (want < 0.003)", gap)
	}
	odd := 0
	for i := 0; i < s.Train.N; i++ {
		if int(s.Train.ID[i])%2 != int(s.Train.Env[i]) {
			odd++
		}
	}
	if odd < s.Train.N/3 {
		t.Errorf("only %d of %d samples moved off their index parity", odd, s.Train.N)
	}
	c.Envs = EnvsParity
	gap, s = ink(c)
	if gap < 0.01 {
		t.Errorf("parity envs differ in mean ink by %.4f per pixel; the MNIST file's alternation should show (> 0.01)", gap)
	}
	for i := 0; i < s.Train.N; i++ {
		if int(s.Train.ID[i])%2 != int(s.Train.Env[i]) {
			t.Fatalf("parity: MNIST %d in env %d", s.Train.ID[i], s.Train.Env[i])
		}
	}
	// A recorded spec without the field is parity: old runs reload their data.
	old := DefaultSpec("cmnist")
	old.Envs, old.DataDir, old.Offline = "", fe.Dir, true
	s2, err := old.Load(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !equalInt32(s2.Train.Env, s.Train.Env) || !equalInt32(s2.Train.Y, s.Train.Y) {
		t.Error("a spec without envs does not rebuild the parity data")
	}
	c.Envs = "odd"
	if _, err := CMNIST(fe, c); err == nil || !strings.Contains(err.Error(), "--cmnist-envs") {
		t.Errorf("bad split: %v", err)
	}
}

// TestEffectiveSpec: what export.json records of a dataset: its defaults
// written out, and nothing it does not read (issue 25, defect 8).
func TestEffectiveSpec(t *testing.T) {
	for _, tc := range []struct {
		name            string
		noise           float64
		image, down     int
		envs            string
		columnsRecorded bool
	}{
		{"cmnist", 0.25, 0, 0, EnvsShuffle, false},
		{"mnist-fashion", 0.1, 0, 2, "", false},
		{"cifar-mnist", 0.1, 0, 1, "", false},
		{"waterbirds", 0, 64, 0, "", false},
		{"features", 0, 0, 0, "", true},
		{"synthetic", 0, 0, 0, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := DefaultSpec(tc.name).Effective()
			if e.LabelNoise != tc.noise || e.ImageSize != tc.image || e.Downsample != tc.down || e.Envs != tc.envs || (e.Columns != FeaturesConfig{}) != tc.columnsRecorded {
				t.Errorf("Effective() = noise %g image %d downsample %d envs %q columns %+v", e.LabelNoise, e.ImageSize, e.Downsample, e.Envs, e.Columns)
			}
		})
	}
}
