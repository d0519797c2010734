package record

import (
	"github.com/maple-ood/maple/models"
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

	// AlsoShared also trains the final weighted ERM by the shared
	// evaluation (SharedTraining: DefaultEval's optimizer, learning
	// rate, momentum, weight decay, steps and checks, from a fresh model)
	// and keeps, of the two trainings, the one validation ranks first
	// (ChooseWeightedERM; a tie keeps these settings' own). Default
	// false; a maple search's evaluation defaults to true.
	AlsoShared bool `json:"also_shared,omitempty"`

	Optimizer string  `json:"optimizer"` // "sgd" (default) or "adam" (torch's, with LR)
	L2        float64 `json:"l2"`        // coefficient of sum theta² added to the loss (not decoupled); default 0
	Recipe    string  `json:"recipe"`    // the published recipe these settings follow, if any (see baselines.Recipe)
}

// DefaultEval returns the defaults documented on EvalSettings.
func DefaultEval() EvalSettings {
	return EvalSettings{Model: "mlp:390,390", Steps: 500, LR: 0.1, Momentum: 0.9, WeightDecay: 0.001,
		EvalEvery: 10, Seed: 1, Penalty: 1000, PenaltyAnneal: 100, DROStep: 0.01, CVaRAlpha: 0.2,
		JTTSteps: 100, JTTUp: 6, Optimizer: "sgd"}
}

// Optimizers are the evaluation's optimizers (EvalSettings.Optimizer; ""
// is sgd).
var Optimizers = []string{"sgd", "adam"}

// CheckRecorded is Check for the evaluation settings of a run that
// exists: its rates are held to what can work, not to setting.MaxRate
// (setting.Recorded), which bounds only rates given now.
func (es EvalSettings) CheckRecorded() error {
	es.LR, es.DROStep, es.MaskLR = setting.Recorded(es.LR), setting.Recorded(es.DROStep), setting.Recorded(es.MaskLR)
	return es.Check()
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
		setting.Num("EvalSettings.LR", es.LR, setting.Rate),
		setting.Num("EvalSettings.Momentum", es.Momentum, setting.Below1),
		setting.Num("EvalSettings.WeightDecay", es.WeightDecay, setting.NonNegative),
		setting.Num("EvalSettings.Penalty", es.Penalty, setting.NonNegative),
		setting.Int("EvalSettings.PenaltyAnneal", es.PenaltyAnneal, 0),
		setting.Num("EvalSettings.DROStep", es.DROStep, setting.Rate),
		setting.Num("EvalSettings.CVaRAlpha", es.CVaRAlpha, setting.Fraction),
		setting.Int("EvalSettings.JTTSteps", es.JTTSteps, 0),
		setting.Num("EvalSettings.JTTUp", es.JTTUp, setting.Positive),
		setting.OneOf("EvalSettings.Optimizer", es.ResolvedOptimizer(), Optimizers),
		setting.Num("EvalSettings.L2", es.L2, setting.NonNegative),
		setting.Num("EvalSettings.RefTrainAcc", es.RefTrainAcc, setting.Unit),
		setting.Num("EvalSettings.LfFQ", es.LfFQ, setting.Unit),
		setting.Num("EvalSettings.LfFEMA", es.LfFEMA, setting.Below1),
		setting.Num("EvalSettings.MaskKeep", es.MaskKeep, setting.Unit),
		setting.Num("EvalSettings.MaskLR", es.MaskLR, setting.RateOrZero),
	)
}

// ResolvedOptimizer is Optimizer, "" (a run recorded before it existed)
// meaning "sgd".
func (es EvalSettings) ResolvedOptimizer() string {
	if es.Optimizer == "" {
		return "sgd"
	}
	return es.Optimizer
}
