package core

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/internal/legacyjson"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/setting"
)

// EvalSettings configures the final weighted ERM and the baselines: full
// batch SGD from a fresh seeded model, checkpoint selected on validation.
type EvalSettings struct {
	Model       string  `json:"model"`        // architecture (a models.Family's spec); default "mlp:390,390"
	Steps       int     `json:"steps"`        // SGD steps; default 500
	LR          float64 `json:"lr"`           // learning rate; default 0.1
	Momentum    float64 `json:"momentum"`     // default 0.9
	WeightDecay float64 `json:"weight_decay"` // default 0.001
	EvalEvery   int     `json:"eval_every"`   // validation check every N steps; default 10
	// MinStep is the first step whose checkpoint may be selected; 0 means
	// Steps/10. It keeps the untrained initialisation out of the choice:
	// on ColoredMNIST every trained model fails the validation minority
	// groups, so worst-group selection would otherwise pick step 0.
	MinStep int    `json:"min_step"`
	Seed    uint64 `json:"seed"` // model initialisation seed; default 1

	Penalty       float64 `json:"penalty"`        // irmv1 / rex penalty weight; default 1000
	PenaltyAnneal int     `json:"penalty_anneal"` // steps with penalty weight 1 before the full weight; default 100
	DROStep       float64 `json:"dro_step"`       // groupdro step size eta_q of the group weights; default 0.01
	CVaRAlpha     float64 `json:"cvar_alpha"`     // cvar tail fraction; default 0.2
	JTTSteps      int     `json:"jtt_steps"`      // jtt first-stage ERM steps; default 100
	JTTUp         float64 `json:"jtt_up"`         // jtt upweight of first-stage errors; default 6

	// RefTrainAcc, when > 0, also tracks the reference protocol's figure:
	// the highest test accuracy over the steps whose training accuracy
	// exceeds it (the MAPLE code uses 0.68); an oracle figure. Default 0.
	RefTrainAcc float64 `json:"ref_train_acc,omitempty"`

	// SameInit starts a maple search's evaluation model from the search's
	// initial parameters (as the MAPLE code does; the two models must be
	// the same) instead of a fresh model seeded with Seed; default false.
	SameInit bool `json:"same_init,omitempty"`

	// LfFQ and LfFEMA are LfF's generalized cross-entropy exponent q and
	// the decay of its per-sample loss averages; 0 means the paper's 0.7.
	LfFQ   float64 `json:"lff_q,omitempty"`
	LfFEMA float64 `json:"lff_ema,omitempty"`

	// MaskKeep is the fraction of the weights a weight-masking method
	// (sparseirm, mrm) keeps; 0 means its recipe's (sparseirm 0.95, mrm
	// none: its sparsity penalty decides). MaskLR is the Adam learning
	// rate of its mask scores or logits; 0 means its recipe's.
	MaskKeep float64 `json:"mask_keep,omitempty"`
	MaskLR   float64 `json:"mask_lr,omitempty"`

	Optimizer string  `json:"optimizer"` // "sgd" (default) or "adam" (torch's, with LR)
	L2        float64 `json:"l2"`        // coefficient of sum theta² added to the loss (not decoupled); default 0
	Recipe    string  `json:"recipe"`    // the published recipe these settings follow, if any (see BaselineRecipe)
}

// DefaultEval returns the defaults documented on EvalSettings.
func DefaultEval() EvalSettings {
	return EvalSettings{Model: "mlp:390,390", Steps: 500, LR: 0.1, Momentum: 0.9, WeightDecay: 0.001,
		EvalEvery: 10, Seed: 1, Penalty: 1000, PenaltyAnneal: 100, DROStep: 0.01, CVaRAlpha: 0.2,
		JTTSteps: 100, JTTUp: 6, Optimizer: "sgd"}
}

// Result is the evaluation of one trained model, selected on validation.
type Result struct {
	Method       string    `json:"method"`
	Dataset      string    `json:"dataset"`
	Model        string    `json:"model"`
	Seed         uint64    `json:"seed"`
	Selection    string    `json:"selection"` // always "validation"
	Criterion    string    `json:"criterion"` // val worst-group accuracy, or val accuracy without groups
	SelectedStep int       `json:"selected_step"`
	ValAcc       float64   `json:"val_acc"`
	ValWorst     float64   `json:"val_worst_group_acc"`
	TestAcc      float64   `json:"test_acc"`
	TestWorst    float64   `json:"test_worst_group_acc"`
	PerGroupTest []float64 `json:"per_group_test_acc"`
	GroupNames   []string  `json:"group_names"`
	// OracleSelection is the checkpoint chosen by test worst-group
	// accuracy: shown for reference only, never as the result.
	OracleSelection OracleFigures `json:"oracle_selection"`
	// Reference is the reference protocol's figure when asked for
	// (EvalSettings.RefTrainAcc): test-selected, an oracle figure.
	Reference *ReferenceFigure `json:"reference_protocol,omitempty"`
	// Last is the last step's figures, kept with the reference protocol.
	Last *LastStep `json:"last_step,omitempty"`
	Done bool      `json:"done"`

	Theta []float32 `json:"-"` // parameters of the selected checkpoint
	// SampleWeights are the per-sample training weights a method ended
	// with (lff's W), when it learns any; nil otherwise.
	SampleWeights []float64 `json:"-"`
	// KeptWeights is the fraction of the weights a weight-masking method's
	// selected network keeps (sparseirm, mrm).
	KeptWeights *float64 `json:"kept_weight_fraction,omitempty"`
	// Curve is every validation check of the training the result was
	// selected from, in step order: what the selection saw (validation)
	// and, beside it, the test figures it did not use.
	Curve []CheckPoint `json:"curve,omitempty"`
}

// CheckPoint is one validation check of a training run: the model at
// Step on the validation and test splits.
type CheckPoint struct {
	Step      int     `json:"step"`
	ValAcc    float64 `json:"val_acc"`
	ValWorst  float64 `json:"val_worst_group_acc"`
	TestAcc   float64 `json:"test_acc"`
	TestWorst float64 `json:"test_worst_group_acc"`
}

// Report writes the selected checkpoint's figures: validation and test
// accuracy, test accuracy per group, and the oracle (test-selected)
// figures, labelled as reference only.
func (r *Result) Report(w io.Writer) {
	fmt.Fprintf(w, "selected on validation (%s) at step %d\n", r.Criterion, r.SelectedStep)
	fmt.Fprintf(w, "  val  acc %.4f  worst-group %.4f\n  test acc %.4f  worst-group %.4f\n", r.ValAcc, r.ValWorst, r.TestAcc, r.TestWorst)
	if r.KeptWeights != nil {
		fmt.Fprintf(w, "  the selected network keeps %.1f%% of its weights\n", 100**r.KeptWeights)
	}
	for g, a := range r.PerGroupTest {
		fmt.Fprintf(w, "    test %-18s %.4f\n", r.GroupNames[g], a)
	}
	fmt.Fprintf(w, "  oracle selection (test-selected, reference only): test acc %.4f worst-group %.4f at step %d\n",
		r.OracleSelection.TestAcc, r.OracleSelection.TestWorst, r.OracleSelection.Step)
}

// ReferenceFigure is the MAPLE code's reported figure: the highest test
// accuracy over the steps (and, for a search, the iterations) whose
// training accuracy exceeds a threshold. It is selected on the test set:
// "oracle selection (reference protocol)", never a result.
type ReferenceFigure struct {
	TestAcc  float64 `json:"test_acc"`
	Step     int     `json:"step"`
	Iter     int     `json:"iter,omitempty"` // the search iterate, for a search
	TrainAcc float64 `json:"train_acc"`      // the step's training accuracy
	MinTrain float64 `json:"min_train_acc"`  // the threshold it had to exceed
}

// LastStep is the last training step's test and training accuracy: no
// selection at all (what the MAPLE code's last retraining step reaches).
type LastStep struct {
	Step     int     `json:"step"`
	TestAcc  float64 `json:"test_acc"`
	TrainAcc float64 `json:"train_acc"`
}

// OracleFigures are test-selected figures, labelled as such.
type OracleFigures struct {
	Step      int     `json:"step"`
	TestAcc   float64 `json:"test_acc"`
	TestWorst float64 `json:"test_worst_group_acc"`
}

// Check reports the first invalid evaluation setting (a *setting.Error
// naming its field).
func (es EvalSettings) Check() error {
	if err := models.Check(es.Model); err != nil {
		return setting.Parsed("EvalSettings.Model", err)
	}
	return setting.First(
		setting.Count("EvalSettings.Steps", es.Steps, 1),
		setting.Int("EvalSettings.EvalEvery", es.EvalEvery, 1),
		setting.Int("EvalSettings.MinStep", es.MinStep, 0),
		setting.Num("EvalSettings.LR", es.LR, setting.Positive),
		setting.Num("EvalSettings.Momentum", es.Momentum, setting.Below1),
		setting.Num("EvalSettings.WeightDecay", es.WeightDecay, setting.NonNegative),
		setting.Num("EvalSettings.Penalty", es.Penalty, setting.NonNegative),
		setting.Int("EvalSettings.PenaltyAnneal", es.PenaltyAnneal, 0),
		setting.Num("EvalSettings.DROStep", es.DROStep, setting.Positive),
		setting.Num("EvalSettings.CVaRAlpha", es.CVaRAlpha, setting.Fraction),
		setting.Int("EvalSettings.JTTSteps", es.JTTSteps, 0),
		setting.Num("EvalSettings.JTTUp", es.JTTUp, setting.Positive),
		setting.OneOf("EvalSettings.Optimizer", es.optimizer(), []string{"sgd", "adam"}),
		setting.Num("EvalSettings.L2", es.L2, setting.NonNegative),
		setting.Num("EvalSettings.RefTrainAcc", es.RefTrainAcc, setting.Unit),
		setting.Num("EvalSettings.LfFQ", es.LfFQ, setting.Unit),
		setting.Num("EvalSettings.LfFEMA", es.LfFEMA, setting.Below1),
		setting.Num("EvalSettings.MaskKeep", es.MaskKeep, setting.Unit),
		setting.Num("EvalSettings.MaskLR", es.MaskLR, setting.NonNegative),
	)
}

// trainer trains one fresh model on a split set and selects on validation.
type trainer struct {
	es          EvalSettings
	sp          *dataset.Splits
	net         models.Model[float32]
	k           int
	loss        nets.Loss
	theta, grad []float32
	opt         optimizer
	trainF      []float32
	// view, when not nil, gives the parameters evaluated and selected (a
	// weight-masking method's masked weights); nil: theta.
	view func() []float32
	// The rows with non-zero weight of the weights rowsFor (weightedRows).
	rowsFor []float64
	rowsX   []float32
	rowsY   []int32
	rowsU   []float64
}

// optimizer is SGD or Adam.
type optimizer interface{ Step(theta, grad []float32) }

// optimizer is Optimizer, "" (a run recorded before it existed) meaning sgd.
func (es EvalSettings) optimizer() string {
	if es.Optimizer == "" {
		return "sgd"
	}
	return es.Optimizer
}

// setLR sets the learning rate of the trainer's optimiser.
func (tr *trainer) setLR(lr float64) {
	switch o := tr.opt.(type) {
	case *nets.Adam[float32]:
		o.LR = lr
	case *nets.SGD[float32]:
		o.LR = lr
	}
}

// addL2 adds scale times the gradient of L2 * sum theta² to grad.
func (tr *trainer) addL2(scale float64) {
	if tr.es.L2 == 0 {
		return
	}
	c := float32(2 * tr.es.L2 * scale)
	for i, v := range tr.theta {
		tr.grad[i] += c * v
	}
}

// newTrainer builds the trainer; init, when not nil, is the model's
// initial parameters (else a fresh model seeded with es.Seed).
func newTrainer(sp *dataset.Splits, es EvalSettings, init []float32) (*trainer, error) {
	if err := es.Check(); err != nil {
		return nil, err
	}
	k := models.Outputs(sp.Train)
	net, err := models.New[float32](es.Model, sp.Train.Shape, k)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	tr := &trainer{es: es, sp: sp, net: net, k: k, loss: nets.LossFor(k)}
	tr.theta = make([]float32, net.NumParams())
	tr.grad = make([]float32, net.NumParams())
	if init != nil {
		if len(init) != len(tr.theta) {
			return nil, fmt.Errorf("%d initial parameters for the evaluation model %s, which has %d", len(init), es.Model, len(tr.theta))
		}
		copy(tr.theta, init)
	} else {
		net.Init(tr.theta, rand.New(rand.NewPCG(es.Seed, 0xe7a1)))
	}
	if es.optimizer() == "adam" {
		tr.opt = &nets.Adam[float32]{LR: es.LR}
	} else {
		tr.opt = &nets.SGD[float32]{LR: es.LR, Momentum: es.Momentum, WeightDecay: es.WeightDecay}
	}
	return tr, nil
}

// weightedGrad sets grad to the gradient of sum u_i l_i / sum u_i. The
// samples with u_i = 0 are left out of the pass (gathered once per u).
func (tr *trainer) weightedGrad(u []float64) error {
	var s float64
	for _, v := range u {
		s += v
	}
	if !(s > 0) {
		return fmt.Errorf("every training weight is zero")
	}
	x, y, w := tr.weightedRows(u)
	n := len(y)
	tr.net.Backprop(tr.theta, x, n, func(lo, hi int, f, cot []float32) {
		nets.Losses(tr.loss, f, y[lo:hi], tr.k, nil, cot)
		for j := range cot {
			cot[j] *= float32(w[lo+j/tr.k] / s)
		}
	}, tr.grad)
	tr.addL2(1)
	return nil
}

// weightedRows returns the training rows with u_i > 0, their labels and
// weights: the training set itself when none is zero, else a gathered
// copy kept for the next call with the same u.
func (tr *trainer) weightedRows(u []float64) ([]float32, []int32, []float64) {
	d := tr.sp.Train
	if tr.rowsFor != nil && len(u) > 0 && &tr.rowsFor[0] == &u[0] {
		return tr.rowsX, tr.rowsY, tr.rowsU
	}
	kept := 0
	for _, v := range u {
		if v != 0 {
			kept++
		}
	}
	if kept == d.N {
		return d.X, d.Y, u
	}
	tr.rowsX, tr.rowsY, tr.rowsU = make([]float32, 0, kept*d.D), make([]int32, 0, kept), make([]float64, 0, kept)
	for i, v := range u {
		if v != 0 {
			tr.rowsX = append(tr.rowsX, d.Row(i)...)
			tr.rowsY, tr.rowsU = append(tr.rowsY, d.Y[i]), append(tr.rowsU, v)
		}
	}
	tr.rowsFor = u
	return tr.rowsX, tr.rowsY, tr.rowsU
}

// logits32 returns the training logits at the current parameters.
func (tr *trainer) logits32() []float32 {
	d := tr.sp.Train
	tr.trainF = grow32(tr.trainF, d.N*tr.k)
	tr.net.Forward(tr.theta, d.X, d.N, tr.trainF)
	return tr.trainF
}

// logits returns the training logits at the current parameters, in float64.
func (tr *trainer) logits() []float64 { return to64(tr.logits32()) }

func grow32(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// cotGrad sets grad to J^T cot on the training set.
func (tr *trainer) cotGrad(cot []float64) {
	c := make([]float32, len(cot))
	for i, v := range cot {
		c[i] = float32(v)
	}
	d := tr.sp.Train
	tr.net.VJP(tr.theta, d.X, d.N, c, tr.grad)
}

// Progress is told at every validation check of a training run (the
// final weighted ERM, a baseline): the step, the steps in all, and the
// checkpoint's validation and test worst-group accuracy.
type Progress func(step, steps int, valWorst, testWorst float64)

type progressKey struct{}

// WithProgress returns ctx carrying p, which WeightedERM and Baseline
// call at every validation check.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// Stage names one of a method's trainings that come before the one it
// selects on validation (MRM's ERM and mask stages, JTT's first ERM):
// stage N of Of, which ends with the validated training.
type Stage struct {
	Name  string // what the stage trains, in words
	N, Of int    // this stage's number, from 1, and the stages in all
}

// StageProgress is told after every step of a Stage: the step (from 1)
// and the stage's steps.
type StageProgress func(st Stage, step, steps int)

type stageKey struct{}

// WithStageProgress returns ctx carrying p, which the methods with stages
// before their validated training call after every step of them.
func WithStageProgress(ctx context.Context, p StageProgress) context.Context {
	return context.WithValue(ctx, stageKey{}, p)
}

// runStage runs the steps of stage st, step(i) for i from 0: it stops
// with ctx's error when ctx ends and tells ctx's StageProgress after
// every step.
func runStage(ctx context.Context, st Stage, steps int, step func(i int) error) error {
	p, _ := ctx.Value(stageKey{}).(StageProgress)
	for i := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := step(i); err != nil {
			return err
		}
		if p != nil {
			p(st, i+1, steps)
		}
	}
	return nil
}

// run trains for the configured steps; grad(step) must fill tr.grad.
func (tr *trainer) run(ctx context.Context, method string, grad func(step int) error) (*Result, error) {
	val, test := tr.sp.Val, tr.sp.Test
	res := &Result{Method: method, Dataset: tr.sp.Name, Model: tr.es.Model, Seed: tr.es.Seed, Selection: "validation",
		Criterion: "val worst-group accuracy", GroupNames: test.GroupNames, SelectedStep: -1}
	if len(val.GroupNames) == 0 {
		res.Criterion = "val accuracy"
	}
	vf, tf := make([]float32, val.N*tr.k), make([]float32, test.N*tr.k)
	best, bestOracle := math.Inf(-1), math.Inf(-1)
	minStep := tr.es.MinStep
	if minStep <= 0 {
		minStep = tr.es.Steps / 10
	}
	progress, _ := ctx.Value(progressKey{}).(Progress)
	var ref *ReferenceFigure // the reference protocol's figure so far
	for step := 0; step <= tr.es.Steps; step++ {
		if step >= minStep && (step%tr.es.EvalEvery == 0 || step == tr.es.Steps) {
			th := tr.theta
			if tr.view != nil {
				th = tr.view()
			}
			tr.net.Forward(th, val.X, val.N, vf)
			tr.net.Forward(th, test.X, test.N, tf)
			va, ta := accuracy(vf, tr.k, val), accuracy(tf, tr.k, test)
			res.Curve = append(res.Curve, CheckPoint{Step: step, ValAcc: va.Avg, ValWorst: va.Worst, TestAcc: ta.Avg, TestWorst: ta.Worst})
			if progress != nil {
				progress(step, tr.es.Steps, va.Worst, ta.Worst)
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
			if thr := tr.es.RefTrainAcc; thr > 0 {
				tra := accuracy(tr.logits32(), tr.k, tr.sp.Train).Avg
				if tra > thr && (ref == nil || ta.Avg > ref.TestAcc) {
					ref = &ReferenceFigure{TestAcc: ta.Avg, Step: step, TrainAcc: tra, MinTrain: thr}
				}
				if step == tr.es.Steps {
					res.Last = &LastStep{Step: step, TestAcc: ta.Avg, TrainAcc: tra}
				}
			}
		}
		if step == tr.es.Steps {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := grad(step); err != nil {
			return nil, err
		}
		for _, g := range tr.grad {
			if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) {
				return nil, fmt.Errorf("%s: gradient is not finite at step %d; lower the learning rate", method, step)
			}
		}
		tr.opt.Step(tr.theta, tr.grad)
	}
	res.Reference = ref
	res.Done = true
	return res, nil
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
	tr, err := newTrainer(sp, es, init)
	if err != nil {
		return nil, err
	}
	return tr.run(ctx, method, func(int) error { return tr.weightedGrad(u) })
}

// A Method is a comparison method: it trains es.Model on sp its own way
// and selects on validation. A new method is a type in a file of its own
// and one line in methodRegistry; --method, its help, completion and the
// browser's form list the registry.
type Method interface {
	// Name is the method's name for --method and in run.json.
	Name() string
	// Train trains and evaluates the method on sp.
	Train(ctx context.Context, sp *dataset.Splits, es EvalSettings) (*Result, error)
}

// recipeMethod is a Method with a published recipe (BaselineRecipe).
type recipeMethod interface {
	// recipe returns es with the recipe applied to the settings not in
	// keep, and its name.
	recipe(es EvalSettings, keep map[string]bool) EvalSettings
}

// MethodFields are the evaluation settings only some methods read: the
// penalties, LfF's and the masks' settings, and those of groupdro, cvar
// and jtt. A method lists the ones it reads with ownFields; every other
// evaluation setting is read by every method's training (and by the
// final weighted ERM of a maple search, which reads none of these).
var MethodFields = []string{"EvalSettings.Penalty", "EvalSettings.PenaltyAnneal", "EvalSettings.LfFQ", "EvalSettings.LfFEMA",
	"EvalSettings.MaskKeep", "EvalSettings.MaskLR", "EvalSettings.DROStep", "EvalSettings.CVaRAlpha", "EvalSettings.JTTSteps", "EvalSettings.JTTUp"}

// ownFielder is a Method that reads some of MethodFields.
type ownFielder interface {
	// ownFields lists the MethodFields the method reads.
	ownFields() []string
}

// MethodsReading returns the methods of the registry that read field, in
// registry order, when field is one of MethodFields (own true); own is
// false for a field every method reads.
func MethodsReading(field string) (methods []string, own bool) {
	if !slices.Contains(MethodFields, field) {
		return nil, false
	}
	for _, m := range methodRegistry {
		if o, ok := m.(ownFielder); ok && slices.Contains(o.ownFields(), field) {
			methods = append(methods, m.Name())
		}
	}
	return methods, true
}

// MethodMaple is the search itself, which package runs drives through an
// Engine rather than Baseline.
const MethodMaple = "maple"

// methodRegistry lists the comparison methods, in the order --help and
// completion show them.
var methodRegistry = []Method{weightedMethod{"erm"}, oracle{}, irmPenalty{"irmv1"}, irmPenalty{"rex"}, groupDRO{},
	cvarMethod{}, jtt{}, weightedMethod{"upweight"}, lff{}, sparseIRM{"irmv1"}, sparseIRM{"rex"}, mrm{}, bayesIRM{}, bayesIRMCode{}}

// Methods lists what the maple search and Baseline can run.
var Methods = append([]string{MethodMaple}, baselineNames()...)

func baselineNames() []string {
	names := make([]string, len(methodRegistry))
	for i, m := range methodRegistry {
		names[i] = m.Name()
	}
	return names
}

func lookupMethod(name string) (Method, bool) {
	for _, m := range methodRegistry {
		if m.Name() == name {
			return m, true
		}
	}
	return nil, false
}

// HasBaselineRecipe tells whether method is a baseline with a published
// recipe (BaselineRecipe).
func HasBaselineRecipe(method string) bool {
	m, _ := lookupMethod(method)
	_, ok := m.(recipeMethod)
	return ok
}

// UsesPenalty tells whether method trains with the invariance penalty
// settings (Penalty, PenaltyAnneal) of EvalSettings.
func UsesPenalty(method string) bool {
	m, _ := lookupMethod(method)
	p, ok := m.(interface{ usesPenalty() bool })
	return ok && p.usesPenalty()
}

// SharedEvalFields are the settings a baseline recipe sets that every
// method's evaluation also reads (the final weighted ERM of maple, erm,
// groupdro, ...); the recipe's other settings (Penalty, PenaltyAnneal)
// are its own.
var SharedEvalFields = []string{"EvalSettings.Optimizer", "EvalSettings.LR", "EvalSettings.L2", "EvalSettings.WeightDecay", "EvalSettings.Steps"}

// BaselineRecipe returns es with the published recipe of a baseline
// method applied to the settings not in keep (the fields the person set,
// as Settings.X or EvalSettings.X);
// methods without one are returned unchanged.
func BaselineRecipe(method string, es EvalSettings, keep map[string]bool) EvalSettings {
	m, _ := lookupMethod(method)
	if r, ok := m.(recipeMethod); ok {
		return r.recipe(es, keep)
	}
	return es
}

// Baseline trains one of the comparison methods (methodRegistry) on sp.
func Baseline(ctx context.Context, sp *dataset.Splits, method string, es EvalSettings) (*Result, error) {
	m, ok := lookupMethod(method)
	if !ok {
		return nil, fmt.Errorf("unknown method %q: want one of %v", method, Methods)
	}
	return m.Train(ctx, sp, es)
}

// ones returns n ones: every sample at weight 1.
func ones(n int) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = 1
	}
	return u
}

// UnmarshalJSON reads evaluation settings, also as maple 0.1 wrote them.
func (es *EvalSettings) UnmarshalJSON(b []byte) error {
	type plain EvalSettings
	return legacyjson.Unmarshal(b, (*plain)(es))
}

// RecipeReference names the MAPLE code's ColoredMNIST recipe.
const RecipeReference = "maple-reference"

// ReferenceRecipe returns set and es with the MAPLE code's ColoredMNIST
// recipe (x-zho14/MAPLE, cnn_mnist_probability_1step_irm.py) applied to
// the settings not in keep (the fields the person set): keep scores only (w
// frozen: weight lr 0), a 30% subset from the start (keep 0.3 = keep0),
// keep lr 1.5, the outer objective on the training split, no weight
// decay, 30 outer x 100 inner steps, the code's hypergradient (weight sum
// held constant), mask (eps 1e-20 inside the logarithms) and IRMv1 scale
// (the mean over its two environments, half maple's sum); every
// iterate evaluated as the code's train_to_converge does: from the
// search's initial parameters, SGD lr 1.0 with momentum 0.9 and no weight
// decay for 200 steps, checked after every step, with the reference
// protocol's figure tracked at a training accuracy above 0.68.
func ReferenceRecipe(set Settings, es EvalSettings, keep map[string]bool) (Settings, EvalSettings) {
	apply := recipeSetter(keep)
	set.Recipe = RecipeReference
	apply("Settings.EvalEachIter", func() { set.EvalEachIter = true })
	apply("Settings.WeightLR", func() { set.WeightLR = 0 })
	apply("Settings.Keep", func() { set.Keep = 0.3 })
	apply("Settings.Keep0", func() { set.Keep0 = 0.3 })
	apply("Settings.KeepLR", func() { set.KeepLR = 1.5 })
	apply("Settings.OuterOn", func() { set.OuterOn = "train" })
	apply("Settings.WeightDecay", func() { set.WeightDecay = 0 })
	apply("Settings.OuterIters", func() { set.OuterIters = 30 })
	apply("Settings.InnerSteps", func() { set.InnerSteps = 100 })
	apply("Settings.DetachSum", func() { set.DetachSum = true })
	apply("Settings.MaskEps", func() { set.MaskEps = 1e-20 })
	apply("Settings.OuterScale", func() {
		if set.Objective == "irmv1" {
			set.OuterScale = 0.5 // the code averages its 2 environments' penalties
		}
	})
	apply("EvalSettings.LR", func() { es.LR = 1 })
	apply("EvalSettings.Steps", func() { es.Steps = 200 })
	apply("EvalSettings.Momentum", func() { es.Momentum = 0.9 })
	apply("EvalSettings.WeightDecay", func() { es.WeightDecay = 0 })
	apply("EvalSettings.EvalEvery", func() { es.EvalEvery = 1 })
	apply("EvalSettings.MinStep", func() { es.MinStep = 1 })
	apply("EvalSettings.SameInit", func() { es.SameInit = true })
	es.RefTrainAcc = 0.68
	return set, es
}
