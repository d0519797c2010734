package core

// worstGroup is the largest mean loss over the groups (Sagawa et al.
// 2020's objective, without its online weights).
type worstGroup struct{}

func (worstGroup) Name() string { return "worst-group" }

func (worstGroup) Risk(b *RiskBatch) (float64, error) {
	n, lab := b.N, b.Lab
	sum, cnt, err := groupSums(n, lab.Group, 1, func(i int) int { return int(lab.Group[i]) }, b.L)
	if err != nil {
		return 0, err
	}
	worst := -1
	for g := range sum {
		if cnt[g] > 0 && (worst < 0 || sum[g]/float64(cnt[g]) > sum[worst]/float64(cnt[worst])) {
			worst = g
		}
	}
	for i := 0; i < n; i++ {
		if int(lab.Group[i]) == worst {
			b.Add(i, 1/float64(cnt[worst]), b.D)
		}
	}
	return sum[worst] / float64(cnt[worst]), nil
}
