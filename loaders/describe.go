package loaders

// Summary describes a dataset's splits: what `maple data` prints.
type Summary struct {
	Name       string         `json:"name"`
	Source     string         `json:"source"`
	Dim        int            `json:"dim"`
	Shape      [3]int         `json:"shape"`
	Classes    int            `json:"classes"`
	LabelNoise float64        `json:"label_noise"`
	Splits     []SplitSummary `json:"splits"`
	HasOracle  bool           `json:"has_oracle"`
	// About says what a generated dataset's construction is (Splits.About).
	About []string `json:"about,omitempty"`
}

// SplitSummary describes one split.
type SplitSummary struct {
	Split string `json:"split"`
	N     int    `json:"n"`
	// LabelNoise is the measured fraction of labels that differ from the
	// clean label, or -1 where the dataset does not know it.
	LabelNoise float64      `json:"label_noise"`
	Envs       []EnvSummary `json:"envs"`
	Groups     []Count      `json:"groups"`
}

// EnvSummary gives, for one environment inside a split, its size and the
// fraction of samples whose label equals the spurious attribute.
type EnvSummary struct {
	Env       string  `json:"env"`
	N         int     `json:"n"`
	Agreement float64 `json:"label_attr_agreement"`
}

// Count is a named count.
type Count struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

// Describe summarises s.
func Describe(s *Splits) Summary {
	t := s.Train
	sum := Summary{Name: s.Name, Source: s.Source, Dim: t.D, Shape: [3]int{t.Shape.C, t.Shape.H, t.Shape.W},
		Classes: t.Classes, LabelNoise: s.LabelNoise, HasOracle: s.Oracle != nil, About: s.About}
	for _, d := range []*Dataset{s.Train, s.Val, s.Test} {
		ss := SplitSummary{Split: d.Name, N: d.N, LabelNoise: -1}
		if d.CleanY != nil {
			flipped := 0
			for i, y := range d.Y {
				if y != d.CleanY[i] {
					flipped++
				}
			}
			ss.LabelNoise = float64(flipped) / float64(d.N)
		}
		n := make([]int, len(d.EnvNames))
		agree := make([]int, len(d.EnvNames))
		for i := 0; i < d.N; i++ {
			n[d.Env[i]]++
			if d.Y[i] == d.Attr[i] {
				agree[d.Env[i]]++
			}
		}
		for e, name := range d.EnvNames {
			if n[e] > 0 {
				ss.Envs = append(ss.Envs, EnvSummary{Env: name, N: n[e], Agreement: float64(agree[e]) / float64(n[e])})
			}
		}
		g := make([]int, len(d.GroupNames))
		for _, v := range d.Group {
			g[v]++
		}
		for i, name := range d.GroupNames {
			ss.Groups = append(ss.Groups, Count{Name: name, N: g[i]})
		}
		sum.Splits = append(sum.Splits, ss)
	}
	return sum
}
