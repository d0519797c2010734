package loaders

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// DataDir resolves the data directory: flag if non-empty, else
// $MAPLE_DATA_DIR, else os.UserCacheDir()/maple.
func DataDir(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if d := os.Getenv("MAPLE_DATA_DIR"); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no data directory: pass --data-dir or set MAPLE_DATA_DIR (%w)", err)
	}
	return filepath.Join(c, "maple"), nil
}

// PublicFile is a published file that can be fetched and verified.
type PublicFile struct {
	Dir, Name string   // relative location under the data directory
	SHA256    string   // hex digest of the published (compressed) file
	MD5       string   // hex digest as published by the dataset's authors
	Size      int64    // bytes
	Mirrors   []string // base URLs tried in order; the file is Mirror + Name
}

var mnistMirrors = []string{
	"https://ossci-datasets.s3.amazonaws.com/mnist/",
	"https://storage.googleapis.com/cvdf-datasets/mnist/",
}

var fashionMirrors = []string{
	"http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
}

// The MNIST and Fashion-MNIST files, as listed in shared/data/MANIFEST.txt.
var (
	MNISTTrainImages = PublicFile{"mnist", "train-images-idx3-ubyte.gz", "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609", "f68b3c2dcbeaaa9fbdd348bbdeb94873", 9912422, mnistMirrors}
	MNISTTrainLabels = PublicFile{"mnist", "train-labels-idx1-ubyte.gz", "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c", "d53e105ee54ea40749a09fcbcd1e9432", 28881, mnistMirrors}
	MNISTTestImages  = PublicFile{"mnist", "t10k-images-idx3-ubyte.gz", "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6", "9fb629c4189551a2d022fa330f9573f3", 1648877, mnistMirrors}
	MNISTTestLabels  = PublicFile{"mnist", "t10k-labels-idx1-ubyte.gz", "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6", "ec29112dd5afa0611ce80d1b7f02629c", 4542, mnistMirrors}

	FashionTrainImages = PublicFile{"fashion-mnist", "train-images-idx3-ubyte.gz", "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84", "8d4fb7e6c68d591d4c3dfef9ec88bf0d", 26421880, fashionMirrors}
	FashionTrainLabels = PublicFile{"fashion-mnist", "train-labels-idx1-ubyte.gz", "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845", "25c81989df183df01b3e8a0aad5dffbe", 29515, fashionMirrors}
	FashionTestImages  = PublicFile{"fashion-mnist", "t10k-images-idx3-ubyte.gz", "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073", "bef4ecab320f06d8554ea6380940ec79", 4422102, fashionMirrors}
	FashionTestLabels  = PublicFile{"fashion-mnist", "t10k-labels-idx1-ubyte.gz", "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5", "bb300cfdad3c16e7a12a480ee83cd310", 5148, fashionMirrors}
)

// Fetcher finds public files under a data directory and downloads the
// missing ones, verifying their digests.
type Fetcher struct {
	Dir      string       // data directory
	Client   *http.Client // default: a client with a 10-minute timeout
	Progress io.Writer    // progress lines; nil for none
	Offline  bool         // never download: a missing file is an error
}

// Path returns the local path of f, downloading it first if it is missing.
// An existing file is trusted as is (the readers check its format); a
// downloaded one must match its size and digests or it is discarded.
func (fe *Fetcher) Path(f PublicFile) (string, error) {
	p := filepath.Join(fe.Dir, f.Dir, f.Name)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%w", err)
	}
	if fe.Offline || len(f.Mirrors) == 0 {
		how := "it has no download source: put the published file there"
		if len(f.Mirrors) > 0 {
			how = "put the published file there or leave out --offline to download it"
		}
		return "", fmt.Errorf("%s is missing; %s (docs/DATASETS.md lists each dataset's files)", p, how)
	}
	made := missingDirs(filepath.Dir(p))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", fmt.Errorf("cannot create %s: %w", filepath.Dir(p), err)
	}
	var errs []error
	for _, m := range f.Mirrors {
		err := fe.download(m+f.Name, p, f)
		if err == nil {
			return p, nil
		}
		errs = append(errs, err)
	}
	for _, d := range made {
		os.Remove(d) // only when empty: another download may have filled it
	}
	return "", downloadError{fmt.Errorf("could not fetch %s (%w); download it by hand into %s", f.Name, errors.Join(errs...), filepath.Dir(p))}
}

// ErrDownload is what a failed download is (errors.Is): the network or
// the mirrors failed, not the person's input, so commands exit 1 for it.
var ErrDownload = errors.New("download failed")

type downloadError struct{ err error }

func (e downloadError) Error() string        { return e.err.Error() }
func (e downloadError) Unwrap() error        { return e.err }
func (e downloadError) Is(target error) bool { return target == ErrDownload }

// missingDirs returns dir and those above it that do not exist, the
// deepest first: the folders a download into dir creates.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, os.ErrNotExist) {
			return out
		}
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out
		}
	}
}

func (fe *Fetcher) download(url, dst string, f PublicFile) error {
	client := fe.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Minute}
	}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+f.Name+".part-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	sh, mh := sha256.New(), md5.New()
	pw := &progress{w: fe.Progress, name: f.Name, total: f.Size, start: time.Now()}
	n, err := io.Copy(io.MultiWriter(tmp, sh, mh, pw), resp.Body)
	pw.done()
	if err != nil {
		tmp.Close()
		return fmt.Errorf("%s: connection lost after %d of %d bytes: %w; run again to retry", url, n, f.Size, err)
	}
	if err := checkDigest(url, n, f, sh, mh); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

func checkDigest(url string, n int64, f PublicFile, sh, mh hash.Hash) error {
	if f.Size > 0 && n != f.Size {
		return fmt.Errorf("%s: got %d bytes, want %d (truncated or wrong file)", url, n, f.Size)
	}
	if got := hex.EncodeToString(sh.Sum(nil)); f.SHA256 != "" && got != f.SHA256 {
		return fmt.Errorf("%s: SHA-256 %s, want %s (corrupted or wrong file)", url, got, f.SHA256)
	}
	if got := hex.EncodeToString(mh.Sum(nil)); f.MD5 != "" && got != f.MD5 {
		return fmt.Errorf("%s: MD5 %s, want %s (corrupted or wrong file)", url, got, f.MD5)
	}
	return nil
}

// progress prints a line per 10% of a download.
type progress struct {
	w        io.Writer
	name     string
	total, n int64
	last     int64
	start    time.Time
}

func (p *progress) Write(b []byte) (int, error) {
	p.n += int64(len(b))
	if p.w != nil && p.total > 0 && (p.n-p.last)*10 >= p.total {
		p.last = p.n
		fmt.Fprintf(p.w, "fetching %s: %d%% (%.1f MB)\n", p.name, 100*p.n/p.total, float64(p.n)/1e6)
	}
	return len(b), nil
}

func (p *progress) done() {
	if p.w != nil {
		fmt.Fprintf(p.w, "fetching %s: %.1f MB in %.1fs\n", p.name, float64(p.n)/1e6, time.Since(p.start).Seconds())
	}
}
