package loaders

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// Spec names a dataset and its options: what a run records so that it can
// load the same data again.
type Spec struct {
	Name       string         `json:"name"`                 // one of Names
	DataDir    string         `json:"data_dir,omitempty"`   // "" = DataDir's default
	TrainSize  int            `json:"train_size,omitempty"` // seeded training subset; 0 = all
	Corr       string         `json:"corr,omitempty"`       // per-env spurious parameters "train0,train1,test"; "" = the dataset's default
	LabelNoise float64        `json:"label_noise"`          // < 0 = the dataset's default
	Downsample int            `json:"downsample,omitempty"` // 0 = the dataset's default
	Offline    bool           `json:"offline,omitempty"`    // never download
	Dir        string         `json:"dir,omitempty"`        // waterbirds / celeba folder; "" = <data dir>/<name>
	ImageSize  int            `json:"image_size,omitempty"` // waterbirds / celeba; 0 = 64
	Features   string         `json:"features,omitempty"`   // .npy features or embeddings
	CSV        string         `json:"csv,omitempty"`        // features: the table
	Columns    FeaturesConfig `json:"columns"`              // features: column names
	// Envs: cmnist's split of the training images into its two envs,
	// EnvsShuffle or EnvsParity. "" is parity: what runs recorded before
	// the field existed used; Resolve gives a new cmnist run shuffle
	// unless --cmnist-envs says otherwise.
	Envs string `json:"envs,omitempty"`
	// ValFraction: features: carve a validation split of this fraction
	// of the training rows, per group, seeded, from a CSV without val
	// rows; 0 (off) uses the file's own val rows.
	ValFraction float64 `json:"val_fraction,omitempty"`
	// Dim: waterbirds-sim / celeba-sim: features per row; 0 = 2048. A
	// new run records it (ForNewRun); other datasets leave it 0.
	Dim int `json:"dim,omitempty"`
	// Digest is the SHA-256 of a person's own files the run reads (CSV,
	// then Features), taken when the run was created (WithDigest); a load
	// refuses files that no longer match, and it keys the run's
	// configuration, so that a sweep reruns its cells, and takes no
	// finished search, on changed data. "": none taken (published files,
	// or a run recorded before the field).
	Digest string `json:"digest,omitempty"`
}

// digest is the SHA-256 of d's own files (CSV, then Features), hex; ""
// when d reads none. A file that cannot be read is an error.
func (d Spec) digest() (string, error) {
	h := sha256.New()
	n := 0
	for _, p := range []string{d.CSV, d.Features} {
		if p == "" {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		fh := sha256.New()
		_, err = io.Copy(fh, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		h.Write(fh.Sum(nil))
		n++
	}
	if n == 0 {
		return "", nil
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// WithDigest returns d with the digest of its own files (Digest), for a
// new run. A file that cannot be read is left to the load to report.
func (d Spec) WithDigest() Spec {
	if dg, err := d.digest(); err == nil {
		d.Digest = dg
	}
	return d
}

// checkDigest refuses files that changed since d's digest was taken.
func (d Spec) checkDigest() error {
	if d.Digest == "" {
		return nil
	}
	dg, err := d.digest()
	if err != nil {
		return err
	}
	if dg != d.Digest {
		files := strings.Join(slices.DeleteFunc([]string{d.CSV, d.Features}, func(p string) bool { return p == "" }), " and ")
		return fmt.Errorf("%s changed since the run was created (the SHA-256 of its contents differs): the run's results and a resume need the data it started with; put those files back, or start a new run on the changed ones", files)
	}
	return nil
}

// DefaultSpec returns a Spec for name with every option at its default.
func DefaultSpec(name string) Spec {
	return Spec{Name: name, LabelNoise: -1, Columns: DefaultFeatures()}.ForNewRun()
}

// ForNewRun returns d as a new run builds it (cmnist without an env split
// gets EnvsShuffle; in a recorded spec, no split means parity: EnvSplit;
// the simulated embeddings record their dimension, other datasets none,
// so that a sweep's --dim leaves its other datasets' cells as they are).
func (d Spec) ForNewRun() Spec {
	if !reads(d.Name, "Dim") {
		d.Dim = 0
	}
	if s, ok := lookupSource(d.Name); ok {
		if n, ok := s.(NewRunner); ok {
			return n.ForNewRun(d)
		}
	}
	return d
}

// Effective returns d with the dataset's defaults written out where d
// leaves them to it (label noise, downsampling, image size), and the
// options the dataset does not read left blank, for records people read
// (export.json): no label noise of -1, no image size on cmnist.
func (d Spec) Effective() Spec {
	s, _ := lookupSource(d.Name)
	if e, ok := s.(Effectiver); ok {
		d = e.Effective(d)
	} else if d.LabelNoise < 0 {
		d.LabelNoise = 0 // no label noise of the dataset's own
	}
	if !reads(d.Name, "ImageSize") {
		d.ImageSize = 0
	} else if d.ImageSize <= 0 {
		d.ImageSize = 64
	}
	if !reads(d.Name, "Columns") {
		d.Columns = FeaturesConfig{}
	}
	return d
}

// EnvSplit returns the env split d records, with its dataset's default
// written out (Effective: cmnist's "" is EnvsParity, a spec written
// before the option existed). Datasets without envs to split have none
// ("").
func (d Spec) EnvSplit() string { return d.Effective().Envs }

// ForDataset returns d for the dataset called name: without the env
// split when name does not read one (only cmnist lists "Envs" among its
// options), as a sweep's cell on another dataset records it.
func (d Spec) ForDataset(name string) Spec {
	d.Name = name
	if !reads(name, "Envs") {
		d.Envs = ""
	}
	return d
}

func parseTriple(s string) ([3]float64, error) {
	var t [3]float64
	f := strings.Split(s, ",")
	if len(f) != 3 {
		return t, fmt.Errorf("--corr %q: want three comma-separated numbers (train env 0, train env 1, test)", s)
	}
	for i, v := range f {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(x >= 0 && x <= 1) {
			return t, fmt.Errorf("--corr %q: %q is not a probability in [0, 1]", s, v)
		}
		t[i] = x
	}
	return t, nil
}

// Load builds the dataset with the given seed; download progress goes to
// progress (nil for none).
func (d Spec) Load(seed uint64, progress io.Writer) (*Splits, error) {
	if err := d.Check(); err != nil {
		return nil, err
	}
	dir, err := DataDir(d.DataDir)
	if err != nil {
		return nil, err
	}
	fe := &Fetcher{Dir: dir, Progress: progress, Offline: d.Offline}
	var corr [3]float64
	if d.Corr != "" {
		if corr, err = parseTriple(d.Corr); err != nil {
			return nil, err
		}
	}
	src, ok := lookupSource(d.Name)
	if !ok {
		return nil, unknownDataset(d.Name)
	}
	if err := d.checkDigest(); err != nil {
		return nil, err
	}
	HoldData(d.DataBytes())
	sp, err := src.Load(d, LoadInput{Seed: seed, Dir: dir, Fetcher: fe, Corr: corr})
	if err != nil {
		return nil, err
	}
	if b := featureBytes(sp); b >= bigData {
		HoldData(b)
		debug.FreeOSMemory() // what reading the files left behind
	}
	return sp, nil
}

// featureBytes is the memory of sp's feature matrices (and its oracle's).
func featureBytes(sp *Splits) int64 {
	var n int64
	for s := sp; s != nil; s = s.Oracle {
		for _, d := range []*Dataset{s.Train, s.Val, s.Test} {
			if d != nil {
				n += 4 * int64(len(d.X))
			}
		}
	}
	return n
}
