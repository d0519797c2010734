package core

import "github.com/maple-ood/maple/setting"

// SearchSpace is the distribution a random search (maple sweep --search
// random) draws a maple search's settings from: its three learning rates
// and its final keep fraction, around the defaults and the reference
// preset's values.
func SearchSpace() []setting.Param {
	return []setting.Param{
		{Field: "Settings.WeightLR", Dist: setting.LogUniform{Lo: 0.03, Hi: 1}},
		{Field: "Settings.KeepLR", Dist: setting.LogUniform{Lo: 0.01, Hi: 3}},
		{Field: "Settings.InnerLR", Dist: setting.LogUniform{Lo: 0.02, Hi: 0.3}},
	}
}
