package core

// rex is V-REx (Krueger et al. 2021): the variance over environments of
// each one's mean loss.
type rex struct{}

func (rex) Name() string { return "rex" }

func (rex) Risk(b *RiskBatch) (float64, error) {
	n, lab := b.N, b.Lab
	sum, cnt, err := groupSums(n, lab.Env, 1, func(i int) int { return int(lab.Env[i]) }, b.L)
	if err != nil {
		return 0, err
	}
	var means []float64
	idx := make([]int, len(sum))
	for e := range sum {
		idx[e] = -1
		if cnt[e] > 0 {
			idx[e] = len(means)
			means = append(means, sum[e]/float64(cnt[e]))
		}
	}
	var bar, r float64
	for _, m := range means {
		bar += m
	}
	bar /= float64(len(means))
	for _, m := range means {
		r += (m - bar) * (m - bar)
	}
	ne := float64(len(means))
	r /= ne
	for i := 0; i < n; i++ {
		e := lab.Env[i]
		b.Add(i, 2*(means[idx[e]]-bar)/ne/float64(cnt[e]), b.D)
	}
	return r, nil
}
