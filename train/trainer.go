package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/nets"
)

// A Trainer trains one fresh model on a split set and selects on
// validation. A method reads and steps its fields between the steps Run
// calls for.
type Trainer struct {
	ES     EvalSettings
	Splits *dataset.Splits
	Net    models.Model[float32]
	K      int       // logits per row (models.Outputs)
	Loss   nets.Loss // the loss for K
	// Theta are the parameters; Grad their gradient, which a step fills.
	Theta, Grad []float32
	Opt         Optimizer
	trainF      []float32
	// View, when not nil, gives the parameters evaluated and selected (a
	// weight-masking method's masked weights); nil: Theta.
	View func() []float32
	// The rows with non-zero weight of the weights rowsFor (weightedRows):
	// their indices, labels and weights, and their features when few.
	rowsFor []float64
	rowsIdx []int
	rowsX   []float32
	rowsY   []int32
	rowsU   []float64
	rows    models.Rows[float32]
}

// An Optimizer is SGD or Adam.
type Optimizer interface{ Step(theta, grad []float32) }

// SetLR sets the learning rate of the trainer's optimiser.
func (tr *Trainer) SetLR(lr float64) {
	switch o := tr.Opt.(type) {
	case *nets.Adam[float32]:
		o.LR = lr
	case *nets.SGD[float32]:
		o.LR = lr
	}
}

// AddL2 adds scale times the gradient of L2 * sum theta² to grad.
func (tr *Trainer) AddL2(scale float64) {
	if tr.ES.L2 == 0 {
		return
	}
	c := float32(2 * tr.ES.L2 * scale)
	for i, v := range tr.Theta {
		tr.Grad[i] += c * v
	}
}

// NewTrainer builds the trainer; init, when not nil, is the model's
// initial parameters (else a fresh model seeded with es.Seed).
func NewTrainer(sp *dataset.Splits, es EvalSettings, init []float32) (*Trainer, error) {
	if err := es.CheckRecorded(); err != nil { // the bound on rates given now is config's
		return nil, err
	}
	k := models.Outputs(sp.Train)
	net, err := models.New[float32](es.Model, sp.Train.Shape, k)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	models.FitData(net, sp.Train.N*sp.Train.D)
	tr := &Trainer{ES: es, Splits: sp, Net: net, K: k, Loss: nets.LossFor(k)}
	tr.Theta = make([]float32, net.NumParams())
	tr.Grad = make([]float32, net.NumParams())
	if init != nil {
		if len(init) != len(tr.Theta) {
			return nil, fmt.Errorf("%d initial parameters for the evaluation model %s, which has %d", len(init), es.Model, len(tr.Theta))
		}
		copy(tr.Theta, init)
	} else {
		net.Init(tr.Theta, rand.New(rand.NewPCG(es.Seed, 0xe7a1)))
	}
	if es.ResolvedOptimizer() == "adam" {
		tr.Opt = &nets.Adam[float32]{LR: es.LR}
	} else {
		tr.Opt = &nets.SGD[float32]{LR: es.LR, Momentum: es.Momentum, WeightDecay: es.WeightDecay}
	}
	return tr, nil
}

// WeightedGrad sets Grad to the gradient of sum u_i l_i / sum u_i. The
// samples with u_i = 0 are left out of the pass (gathered once per u).
func (tr *Trainer) WeightedGrad(u []float64) error {
	var s float64
	for _, v := range u {
		s += v
	}
	if !(s > 0) {
		return fmt.Errorf("every training weight is zero")
	}
	x, idx, y, w := tr.weightedRows(u)
	fill := func(lo, hi int, f, cot []float32) {
		nets.Losses(tr.Loss, f, y[lo:hi], tr.K, nil, cot)
		for j := range cot {
			cot[j] *= float32(w[lo+j/tr.K] / s)
		}
	}
	if idx != nil {
		tr.rows.Backprop(tr.Theta, tr.Splits.Train.X, idx, fill, tr.Grad)
	} else {
		tr.Net.Backprop(tr.Theta, x, len(y), fill, tr.Grad)
	}
	tr.AddL2(1)
	return nil
}

// gatherMax is the most feature values weightedRows copies (32 MiB of
// float32); more rows, a share of a large data set, are read through
// their indices by a model that gathers one chunk at a time.
var gatherMax = 8 << 20

// weightedRows returns the training rows with u_i > 0, their labels and
// weights: the training set itself when none is zero, else a gathered
// copy kept for the next call with the same u; or, where that copy would
// be large and the model reads rows through their indices, the rows'
// indices (x nil) and no copy.
func (tr *Trainer) weightedRows(u []float64) (x []float32, idx []int, y []int32, w []float64) {
	d := tr.Splits.Train
	if tr.rowsFor != nil && len(u) > 0 && &tr.rowsFor[0] == &u[0] {
		return tr.rowsX, tr.rowsIdx, tr.rowsY, tr.rowsU
	}
	kept := 0
	for _, v := range u {
		if v != 0 {
			kept++
		}
	}
	if kept == d.N {
		return d.X, nil, d.Y, u
	}
	_, byRows := tr.Net.(models.RowsModel[float32])
	byRows = byRows && kept*d.D > gatherMax
	tr.rowsX, tr.rowsIdx = nil, nil
	if byRows {
		tr.rowsIdx = make([]int, 0, kept)
		tr.rows = models.Rows[float32]{M: tr.Net, D: d.D}
	} else {
		tr.rowsX = make([]float32, 0, kept*d.D)
	}
	tr.rowsY, tr.rowsU = make([]int32, 0, kept), make([]float64, 0, kept)
	for i, v := range u {
		if v != 0 {
			if byRows {
				tr.rowsIdx = append(tr.rowsIdx, i)
			} else {
				tr.rowsX = append(tr.rowsX, d.Row(i)...)
			}
			tr.rowsY, tr.rowsU = append(tr.rowsY, d.Y[i]), append(tr.rowsU, v)
		}
	}
	tr.rowsFor = u
	return tr.rowsX, tr.rowsIdx, tr.rowsY, tr.rowsU
}

// Logits32 returns the training logits at the current parameters.
func (tr *Trainer) Logits32() []float32 {
	d := tr.Splits.Train
	tr.trainF = grow32(tr.trainF, d.N*tr.K)
	tr.Net.Forward(tr.Theta, d.X, d.N, tr.trainF)
	return tr.trainF
}

// Logits returns the training logits at the current parameters, in float64.
func (tr *Trainer) Logits() []float64 { return to64(tr.Logits32()) }

func grow32(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// CotGrad sets Grad to J^T cot on the training set.
func (tr *Trainer) CotGrad(cot []float64) {
	c := make([]float32, len(cot))
	for i, v := range cot {
		c[i] = float32(v)
	}
	d := tr.Splits.Train
	tr.Net.VJP(tr.Theta, d.X, d.N, c, tr.Grad)
}

// Run trains for the configured steps, selecting on validation at
// every check (each in Result.Curve, told to the context's Progress);
// grad(step) must fill tr.Grad, which Run then steps with tr.Opt.
func (tr *Trainer) Run(ctx context.Context, method string, grad func(step int) error) (*Result, error) {
	val, test := tr.Splits.Val, tr.Splits.Test
	res := &Result{Method: method, Dataset: tr.Splits.Name, Model: tr.ES.Model, Seed: tr.ES.Seed, Selection: "validation",
		Criterion: CriterionWorst, GroupNames: test.GroupNames, SelectedStep: -1}
	if len(val.GroupNames) == 0 {
		res.Criterion = CriterionAcc
	}
	vf, tf := make([]float32, val.N*tr.K), make([]float32, test.N*tr.K)
	best, bestOracle := math.Inf(-1), math.Inf(-1)
	minStep := tr.ES.MinStep
	if minStep <= 0 {
		minStep = tr.ES.Steps / 10
	}
	progress, _ := ctx.Value(progressKey{}).(Progress)
	var ref *ReferenceFigure // the reference protocol's figure so far
	for step := 0; step <= tr.ES.Steps; step++ {
		if step >= minStep && (step%tr.ES.EvalEvery == 0 || step == tr.ES.Steps) {
			th := tr.Theta
			if tr.View != nil {
				th = tr.View()
			}
			tr.Net.Forward(th, val.X, val.N, vf)
			tr.Net.Forward(th, test.X, test.N, tf)
			va, ta := AccuracyOf(vf, tr.K, val), AccuracyOf(tf, tr.K, test)
			res.Curve = append(res.Curve, CheckPoint{Step: step, ValAcc: va.Avg, ValWorst: va.Worst, TestAcc: ta.Avg, TestWorst: ta.Worst})
			if progress != nil {
				progress(step, tr.ES.Steps, va.Worst, ta.Worst)
			}
			crit := va.Worst
			if len(val.GroupNames) == 0 {
				crit = va.Avg
			}
			if crit > best {
				best = crit
				res.SelectedStep, res.ValAcc, res.ValWorst = step, va.Avg, va.Worst
				res.TestAcc, res.TestWorst, res.PerGroupTest = ta.Avg, ta.Worst, ta.PerGroup
				res.Theta = append(res.Theta[:0], th...)
			}
			if ta.Worst > bestOracle {
				bestOracle = ta.Worst
				res.OracleSelection = OracleFigures{Step: step, TestAcc: ta.Avg, TestWorst: ta.Worst}
			}
			if thr := tr.ES.RefTrainAcc; thr > 0 {
				tra := AccuracyOf(tr.Logits32(), tr.K, tr.Splits.Train).Avg
				if tra > thr && (ref == nil || ta.Avg > ref.TestAcc) {
					ref = &ReferenceFigure{TestAcc: ta.Avg, Step: step, TrainAcc: tra, MinTrain: thr}
				}
				if step == tr.ES.Steps {
					res.Last = &LastStep{Step: step, TestAcc: ta.Avg, TrainAcc: tra}
				}
			}
		}
		if step == tr.ES.Steps {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := grad(step); err != nil {
			return nil, err
		}
		if !finite32(tr.Grad) {
			if res.SelectedStep < 0 {
				return nil, fmt.Errorf("%s: %w at step %d, before any checkpoint could be selected; lower the learning rate", method, ErrNotFinite, step)
			}
			// Diverged: the checkpoints so far stand, as the MAPLE code's
			// best-so-far tracking keeps them; the result says where.
			res.Stopped = &step
			break
		}
		tr.Opt.Step(tr.Theta, tr.Grad)
	}
	res.Reference = ref
	res.Done = true
	return res, nil
}

// ErrNotFinite is a training's error when its gradient stopped being
// finite before any checkpoint could be selected (a learning rate too
// high for the model).
var ErrNotFinite = errors.New("gradient is not finite")

// finite32 tells whether every value is a finite number.
func finite32(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// WeightedERM trains a fresh es.Model by weighted ERM with per-sample
// training weights u (0 drops a sample) and selects on validation.
func WeightedERM(ctx context.Context, sp *dataset.Splits, u []float64, es EvalSettings, method string) (*Result, error) {
	return WeightedERMFrom(ctx, sp, u, es, method, nil)
}

// WeightedERMFrom is WeightedERM from the initial parameters init (flat,
// es.Model's layout; nil: a fresh model seeded with es.Seed).
func WeightedERMFrom(ctx context.Context, sp *dataset.Splits, u []float64, es EvalSettings, method string, init []float32) (*Result, error) {
	if len(u) != sp.Train.N {
		return nil, fmt.Errorf("%d weights for %d training samples", len(u), sp.Train.N)
	}
	tr, err := NewTrainer(sp, es, init)
	if err != nil {
		return nil, err
	}
	return tr.Run(ctx, method, func(int) error { return tr.WeightedGrad(u) })
}

// Ones returns n ones: every sample at weight 1.
func Ones(n int) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = 1
	}
	return u
}

// RecipeSetter returns set(field, apply), which applies a recipe's value
// unless the person set the field (keep holds the fields they set).
func RecipeSetter(keep map[string]bool) func(field string, apply func()) {
	return func(field string, apply func()) {
		if !keep[field] {
			apply()
		}
	}
}
