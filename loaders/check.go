package loaders

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Check reports the first option of d that cannot work, naming its flag,
// before anything is loaded or created.
func (d Spec) Check() error {
	src, known := lookupSource(d.Name)
	switch {
	case !known:
		return unknownDataset(d.Name)
	case d.TrainSize < 0:
		return fmt.Errorf("--train-size %d: want 0 (all) or a positive count", d.TrainSize)
	case math.IsNaN(d.LabelNoise) || math.IsInf(d.LabelNoise, 0) || d.LabelNoise >= 0.5:
		return fmt.Errorf("--label-noise %g: want a probability in [0, 0.5), or leave it out for the dataset's default", d.LabelNoise)
	case d.Downsample < 0:
		return fmt.Errorf("--downsample %d: want 0 (the default) or a positive step", d.Downsample)
	case d.ImageSize < 0 || d.ImageSize > 4096:
		return fmt.Errorf("--image-size %d: want a size in 1..4096", d.ImageSize)
	case d.Envs != "" && checkEnvs(d.Envs) != nil:
		return checkEnvs(d.Envs)
	case d.Envs != "" && !reads(d.Name, "Envs"):
		return fmt.Errorf("--cmnist-envs applies to the %s dataset only, not %s: leave it out", strings.Join(reading("Envs"), ", "), d.Name)
	case d.ValFraction != 0 && !reads(d.Name, "ValFraction"):
		return fmt.Errorf("--val-fraction applies to --dataset %s only, not %s: leave it out", strings.Join(reading("ValFraction"), ", "), d.Name)
	case d.Dim != 0 && !reads(d.Name, "Dim"):
		return fmt.Errorf("--dim applies to --dataset %s only, not %s: leave it out", strings.Join(reading("Dim"), ", "), d.Name)
	case math.IsNaN(d.ValFraction) || d.ValFraction < 0 || d.ValFraction >= 1:
		return fmt.Errorf("--val-fraction %g: want a fraction in (0, 1) of the training rows to carve a validation split from, or 0 to use the file's val rows", d.ValFraction)
	}
	if c, ok := src.(Checker); ok {
		if err := c.Check(d); err != nil {
			return err
		}
	}
	if d.Corr != "" {
		if _, err := parseTriple(d.Corr); err != nil {
			return err
		}
	}
	return nil
}

// Abs returns d with every path made absolute against the working
// directory, so that a run recorded with it can be resumed, exported or
// evaluated from anywhere.
func (d Spec) Abs() (Spec, error) {
	for _, p := range []*string{&d.DataDir, &d.Dir, &d.Features, &d.CSV} {
		if *p == "" {
			continue
		}
		a, err := filepath.Abs(*p)
		if err != nil {
			return d, fmt.Errorf("cannot resolve %s: %w", *p, err)
		}
		*p = a
	}
	return d, nil
}

// MemTotal returns the machine's memory in bytes from /proc/meminfo, or
// 0 when it cannot be read.
func MemTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
