package train

import (
	"fmt"
	"math"

	"github.com/maple-ood/maple/dataset"
)

// SpuriousShare measures, for a linear binary model theta (D weights then
// the bias) on a dataset with a known basis x = S z (the synthetic linear
// case), |theta_s| / (|theta_c| + |theta_s|) where [theta_c; theta_s] =
// S^T theta are the coefficients on the core and spurious coordinates of
// z, each measured along its block's mean direction (the all-ones
// direction of loaders.Synthetic, the only direction of the block that
// carries label or attribute signal; the orthogonal rest is sampling
// noise, which even the oracle fits).
func SpuriousShare(sp *dataset.Splits, theta []float32) (float64, error) {
	d := sp.Train.D
	if len(sp.Basis) != d*d || sp.CoreDims <= 0 || sp.CoreDims >= d {
		return 0, fmt.Errorf("dataset %s has no known core/spurious basis", sp.Name)
	}
	if len(theta) != d+1 {
		return 0, fmt.Errorf("the spurious share needs a linear binary model (%d parameters), got %d", d+1, len(theta))
	}
	var c, s float64
	for q := 0; q < d; q++ {
		var z float64
		for r := 0; r < d; r++ {
			z += sp.Basis[r*d+q] * float64(theta[r])
		}
		if q < sp.CoreDims {
			c += z
		} else {
			s += z
		}
	}
	c = math.Abs(c) / math.Sqrt(float64(sp.CoreDims))
	s = math.Abs(s) / math.Sqrt(float64(d-sp.CoreDims))
	return s / (c + s), nil
}
