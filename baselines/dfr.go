package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/train"
)

// dfr is Deep Feature Reweighting (Kirichenko, Izmailov and Wilson,
// ICLR 2023, "Last Layer Re-Training is Sufficient for Robustness to
// Spurious Correlations"), its main variant DFR^Val_Tr: the last layer
// retrained on group-balanced data of the validation split. Here the
// last layer is a linear head on the dataset's features as given (meant
// for embeddings of a pretrained network; on images it is a linear head
// on the pixels). It reads the validation split's labels and groups; it
// does not use the training split at all.
//
// The recipe (the paper's section 6 and appendix, and its code):
//   - features standardised by the mean and standard deviation of the
//     split the regression is fitted on;
//   - an L1-regularised logistic regression (scikit-learn's C scaling)
//     on a group-balanced subset: min-group-size rows drawn from each
//     group; dfrSubsets subsets, their coefficients averaged;
//   - C from dfrCs, chosen by worst-group accuracy on one half of the
//     validation split (split within each group) of the regressions
//     fitted on the other half;
//   - the final head refit at that C on the whole validation split.
//
// The validation figures reported are the held-out half's, at the chosen
// C: the final head is fitted on all of validation, so its own
// validation figures would not be held out. Where this differs from the
// code: the tuning averages dfrSubsets subsets per C as the final fit
// does (the code fits one); the halves are split within each group (the
// code splits at random); the intercept is not penalised (liblinear
// penalises it); more than two classes take a multinomial regression
// (liblinear fits one against the rest); CelebA's class-weight tuning is
// not done.
type dfr struct{}

// dfrCs are the paper's grid of C, the inverse L1 strength, in the
// order tried (a tie keeps the first: the weaker penalty).
var dfrCs = []float64{1, 0.7, 0.3, 0.1, 0.07, 0.03, 0.01}

// dfrSubsets is the number of group-balanced subsets whose regressions
// are averaged, as the paper's text gives it.
const dfrSubsets = 10

// The solver's stopping rule (l1LogReg.fit): the gradient mapping at a
// millionth of its size at zero, at most dfrMaxIter iterations.
const (
	dfrTol     = 1e-6
	dfrMaxIter = 5000
)

func (dfr) Name() string { return "dfr" }

func (dfr) Supervision() core.Supervision { return core.SupervisionValGroups }

// readsShared: the seed, which draws the halves and the subsets; no
// model (the head is linear), steps, rates or checks.
func (dfr) ReadsShared() []string { return []string{"EvalSettings.Seed"} }

// recipe is the paper's; the model it records is linear, the head dfr
// fits whatever the model (config refuses --eval-model for it).
func (dfr) Recipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings {
	train.RecipeSetter(keep)("EvalSettings.Model", func() { es.Model = "linear" })
	cs := make([]string, len(dfrCs))
	for i, c := range dfrCs {
		cs[i] = strconv.FormatFloat(c, 'g', -1, 64)
	}
	es.Recipe = fmt.Sprintf("DFR (Kirichenko et al. 2023), DFR^Val_Tr: a linear head by L1 logistic regression on %d group-balanced subsets of the validation split, averaged; C from {%s} by worst-group accuracy on half of validation, fitted on the other half; reads the validation split's group labels",
		dfrSubsets, strings.Join(cs, ", "))
	return es
}

// trainable refuses splits dfr cannot fit on at all: a validation split
// without groups, or splits of different widths.
func (dfr) trainable(sp *dataset.Splits) error {
	if len(sp.Val.GroupNames) == 0 {
		return fmt.Errorf("dfr trains on the validation split's groups, and %s's validation split has none: give the data a group column (--group-col), or choose a method that reads no groups", sp.Name)
	}
	if sp.Val.D != sp.Train.D || sp.Test.D != sp.Train.D {
		return fmt.Errorf("dfr: the splits of %s have %d, %d and %d features", sp.Name, sp.Train.D, sp.Val.D, sp.Test.D)
	}
	return nil
}

// CheckData refuses, before a run is created, what trainable refuses
// and a validation split with fewer than 2 rows of a group the data has:
// with 2, each half (groupHalves) holds one, so C is chosen on every
// group. Train itself fits on such a split (the held-out half then
// lacks the group), as it did before the check.
func (dfr) CheckData(sp *dataset.Splits) error {
	if err := (dfr{}).trainable(sp); err != nil {
		return err
	}
	val := sp.Val
	count := func(ds *dataset.Dataset) map[string]int {
		n := map[string]int{}
		for _, g := range ds.Group[:ds.N] {
			n[ds.GroupNames[g]]++
		}
		return n
	}
	nVal, nTrain, nTest := count(val), count(sp.Train), count(sp.Test)
	var short []string
	for _, name := range val.GroupNames {
		if nVal[name] >= 2 || nVal[name]+nTrain[name]+nTest[name] == 0 {
			continue
		}
		rows := "no rows"
		if nVal[name] == 1 {
			rows = "1 row"
		}
		short = append(short, fmt.Sprintf("%s of group %s (%d in training, %d in test)", rows, name, nTrain[name], nTest[name]))
	}
	if len(short) > 0 {
		return fmt.Errorf("dfr fits its head on the validation split, half of each group to fit and the other half to choose C, so it needs at least 2 validation rows of each group; the validation split of %s has %s: give it 2 or more rows of each group, or choose another method",
			sp.Name, strings.Join(short, ", "))
	}
	return nil
}

func (dfr) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	if err := (dfr{}).trainable(sp); err != nil {
		return nil, err
	}
	val := sp.Val
	k := models.Outputs(sp.Train)
	net, err := models.New[float32]("linear", sp.Train.Shape, k)
	if err != nil {
		return nil, err
	}
	eval := func(theta []float32, ds *dataset.Dataset) train.Accuracy {
		f := make([]float32, ds.N*k)
		net.Forward(theta, ds.X, ds.N, f)
		return train.AccuracyOf(f, k, ds)
	}
	rng := rand.New(rand.NewPCG(es.Seed, 0xdf4))
	fitIdx, heldIdx := groupHalves(val, rng)
	if len(fitIdx) == 0 || len(heldIdx) == 0 {
		return nil, fmt.Errorf("dfr: the validation split of %s has %d samples; it needs at least two, one in each half", sp.Name, val.N)
	}
	held := val.Subset("val, held-out half", heldIdx)
	capped := 0 // fits that stopped at the iteration cap

	// Stage 1: C chosen on the held-out half, of regressions fitted on
	// the other half (the same balanced subsets at every C).
	fitX, mu, sd := standardise(val, fitIdx)
	subsets := balancedSubsets(val, fitIdx, dfrSubsets, rng)
	tuned := &train.Tuned{Name: "C", Setting: "the inverse strength of the L1 penalty", Candidates: make([]train.Candidate, len(dfrCs))}
	best := -1
	err = train.RunStage(ctx, train.Stage{Name: "L1 logistic regressions on half of validation, one C at a time", N: 1, Of: 2}, len(dfrCs), func(i int) error {
		th, c, err := dfrAveraged(ctx, fitX, val, fitIdx, subsets, k, 1/dfrCs[i])
		if err != nil {
			return err
		}
		capped += c
		theta := foldStandardisation(th, mu, sd, k)
		va, ta := eval(theta, held), eval(theta, sp.Test)
		tuned.Candidates[i] = train.Candidate{Value: dfrCs[i], ValAcc: va.Avg, ValWorst: va.Worst, TestAcc: ta.Avg, TestWorst: ta.Worst}
		if best < 0 || va.Worst > tuned.Candidates[best].ValWorst {
			best = i
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	tuned.Chosen = dfrCs[best]

	// Stage 2: the head refit at the chosen C on the whole validation
	// split, standardised by its own mean and deviation.
	all := make([]int, val.N)
	for i := range all {
		all[i] = i
	}
	allX, mu, sd := standardise(val, all)
	subsets = balancedSubsets(val, all, dfrSubsets, rng)
	var th []float64
	err = train.RunStage(ctx, train.Stage{Name: "the head at the chosen C on the whole validation split", N: 2, Of: 2}, 1, func(int) error {
		var c int
		th, c, err = dfrAveraged(ctx, allX, val, all, subsets, k, 1/tuned.Chosen)
		capped += c
		return err
	})
	if err != nil {
		return nil, err
	}
	theta := foldStandardisation(th, mu, sd, k)
	ta := eval(theta, sp.Test)
	tuned.Note = fmt.Sprintf("each C's figures are those of the heads fitted on half of validation, its validation figures on the other half (%d of %d samples); the final head is refit at the chosen C on the whole validation split", held.N, val.N)
	if capped > 0 {
		tuned.Note += fmt.Sprintf("; %d of %d regressions stopped at the solver's cap of %d iterations", capped, dfrSubsets*(len(dfrCs)+1), dfrMaxIter)
	}
	ch := tuned.Candidates[best]
	return &train.Result{Method: "dfr", Dataset: sp.Name, Model: "linear", Seed: es.Seed, Selection: "validation",
		Criterion: train.CriterionWorst, SelectedStep: 0, ValAcc: ch.ValAcc, ValWorst: ch.ValWorst,
		TestAcc: ta.Avg, TestWorst: ta.Worst, PerGroupTest: ta.PerGroup, GroupNames: sp.Test.GroupNames,
		// One head, no checkpoints: nothing is chosen on test.
		OracleSelection: train.OracleFigures{Step: 0, TestAcc: ta.Avg, TestWorst: ta.Worst},
		Tuned:           tuned, Done: true, Theta: theta}, nil
}

// groupHalves splits the validation rows in two within each group, at
// random: the first half is fitted on, the second (half of each group,
// rounded down) held out.
func groupHalves(ds *dataset.Dataset, rng *rand.Rand) (fit, held []int) {
	for _, rows := range groupRows(ds, nil) {
		rng.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
		h := len(rows) / 2
		held = append(held, rows[:h]...)
		fit = append(fit, rows[h:]...)
	}
	return fit, held
}

// groupRows returns the rows idx (nil: all) of each group of ds, in
// order.
func groupRows(ds *dataset.Dataset, idx []int) [][]int {
	rows := make([][]int, len(ds.GroupNames))
	add := func(i int) { rows[ds.Group[i]] = append(rows[ds.Group[i]], i) }
	if idx == nil {
		for i := range ds.N {
			add(i)
		}
	} else {
		for _, i := range idx {
			add(i)
		}
	}
	return rows
}

// balancedSubsets draws m group-balanced subsets of the rows idx of ds:
// from each group present, as many rows as the smallest group has,
// drawn without replacement. A subset holds positions in idx.
func balancedSubsets(ds *dataset.Dataset, idx []int, m int, rng *rand.Rand) [][]int {
	pos := make(map[int]int, len(idx))
	for p, i := range idx {
		pos[i] = p
	}
	groups := groupRows(ds, idx)
	least := math.MaxInt
	for _, rows := range groups {
		if len(rows) > 0 {
			least = min(least, len(rows))
		}
	}
	out := make([][]int, m)
	for s := range out {
		for _, rows := range groups {
			if len(rows) == 0 {
				continue
			}
			rows = append([]int(nil), rows...)
			rng.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
			for _, i := range rows[:least] {
				out[s] = append(out[s], pos[i])
			}
		}
	}
	return out
}

// standardise returns the rows idx of ds as float64, each feature
// centred and divided by its standard deviation over those rows (as
// scikit-learn's StandardScaler: a constant feature is only centred),
// with the means and deviations.
func standardise(ds *dataset.Dataset, idx []int) (x, mu, sd []float64) {
	d, n := ds.D, float64(len(idx))
	mu, sd = make([]float64, d), make([]float64, d)
	for _, i := range idx {
		for j, v := range ds.Row(i) {
			mu[j] += float64(v)
		}
	}
	for j := range mu {
		mu[j] /= n
	}
	for _, i := range idx {
		for j, v := range ds.Row(i) {
			e := float64(v) - mu[j]
			sd[j] += e * e
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / n)
		if sd[j] == 0 {
			sd[j] = 1
		}
	}
	x = make([]float64, len(idx)*d)
	for p, i := range idx {
		for j, v := range ds.Row(i) {
			x[p*d+j] = (float64(v) - mu[j]) / sd[j]
		}
	}
	return x, mu, sd
}

// dfrAveraged fits the L1 logistic regression (penalty lambda) on each
// subset (positions in idx, whose standardised rows x holds) and returns
// the mean of their parameters, and how many stopped at the cap.
func dfrAveraged(ctx context.Context, x []float64, ds *dataset.Dataset, idx []int, subsets [][]int, k int, lambda float64) ([]float64, int, error) {
	d := ds.D
	var mean []float64
	capped := 0
	for _, sub := range subsets {
		xs, ys := make([]float64, len(sub)*d), make([]int32, len(sub))
		for r, p := range sub {
			copy(xs[r*d:(r+1)*d], x[p*d:(p+1)*d])
			ys[r] = ds.Y[idx[p]]
		}
		prob := newL1LogReg(xs, ys, d, k, lambda)
		fit, err := prob.fit(ctx, nil, dfrTol, dfrMaxIter)
		if err != nil {
			return nil, 0, err
		}
		if !fit.Converged {
			capped++
		}
		if mean == nil {
			mean = make([]float64, len(fit.Theta))
		}
		axpy(1/float64(len(subsets)), fit.Theta, mean)
	}
	return mean, capped, nil
}

// foldStandardisation returns the head on the raw features that th
// (package nets' linear layout, k outputs) is on the standardised ones:
// W_jk / sd_j, and b_k - sum_j mu_j W_jk / sd_j.
func foldStandardisation(th, mu, sd []float64, k int) []float32 {
	d := len(mu)
	out := make([]float32, len(th))
	b := append([]float64(nil), th[d*k:]...)
	for j := range d {
		for c := range k {
			w := th[j*k+c] / sd[j]
			out[j*k+c] = float32(w)
			b[c] -= mu[j] * w
		}
	}
	for c := range k {
		out[d*k+c] = float32(b[c])
	}
	return out
}
