package loaders

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// cifarRecord is one CIFAR-10 binary record: a label byte and 3x32x32
// pixel bytes (red, green, blue planes).
const cifarRecord = 1 + 3072

// ReadCIFAR reads a CIFAR-10 binary batch (data_batch_N.bin,
// test_batch.bin) from r; name is used in errors.
func ReadCIFAR(r io.Reader, name string) (labels, pix []byte, err error) {
	data, err := io.ReadAll(io.LimitReader(r, maxIDX+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) == 0 || len(data)%cifarRecord != 0 || len(data) > maxIDX {
		return nil, nil, fmt.Errorf("%s: %d bytes is not a whole number of %d-byte CIFAR-10 records; the file is truncated or not a CIFAR-10 binary batch", name, len(data), cifarRecord)
	}
	n := len(data) / cifarRecord
	labels, pix = make([]byte, n), make([]byte, n*3072)
	for i := 0; i < n; i++ {
		rec := data[i*cifarRecord : (i+1)*cifarRecord]
		if rec[0] > 9 {
			return nil, nil, fmt.Errorf("%s: record %d has label %d, want 0-9; the file is corrupted or not CIFAR-10", name, i, rec[0])
		}
		labels[i] = rec[0]
		copy(pix[i*3072:], rec[1:])
	}
	return labels, pix, nil
}

// cifarDir is where the CIFAR-10 binary batches live under the data dir
// (the folder name inside the published cifar-10-binary.tar.gz).
const cifarDir = "cifar-10-batches-bin"

func loadCIFAR(dir string, files []string) (*images, error) {
	im := &images{c: 3, h: 32, w: 32}
	for _, f := range files {
		p := filepath.Join(dir, cifarDir, f)
		fh, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("%w; cifar-mnist needs CIFAR-10's binary batches (cifar-10-binary.tar.gz, unpacked) in %s", err, filepath.Join(dir, cifarDir))
		}
		l, px, err := ReadCIFAR(bufio.NewReader(fh), p)
		fh.Close()
		if err != nil {
			return nil, err
		}
		im.labels = append(im.labels, l...)
		im.pix = append(im.pix, px...)
		im.n += len(l)
	}
	return im, nil
}

// CIFARMNIST builds the MAPLE paper's CIFARMNIST: a CIFAR-10 image (3 x
// 32 x 32) above an MNIST digit (replicated over the three channels,
// centred), 3 x 64 x 32 before downsampling. CIFAR-10 is not downloaded:
// its binary batches must be in <data dir>/cifar-10-batches-bin/.
func CIFARMNIST(fe *Fetcher, c DominoConfig) (*Splits, error) {
	tr, err := loadCIFAR(fe.Dir, []string{"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin"})
	if err != nil {
		return nil, err
	}
	te, err := loadCIFAR(fe.Dir, []string{"test_batch.bin"})
	if err != nil {
		return nil, err
	}
	mtr, mte, err := loadMNISTBoth(fe)
	if err != nil {
		return nil, err
	}
	s, err := domino("cifar-mnist", tr, te, mtr, mte, c)
	if err != nil {
		return nil, err
	}
	s.Source = filepath.Join(fe.Dir, cifarDir) + " + " + filepath.Join(fe.Dir, MNISTTrainImages.Dir)
	s.Oracle.Source = s.Source
	return s, nil
}
