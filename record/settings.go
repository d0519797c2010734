package record

import (
	"fmt"

	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/setting"
)

// Settings configures a MAPLE search. DefaultSettings gives the defaults
// stated on each field (the MAPLE paper's ColoredMNIST table where it has
// one).
type Settings struct {
	Model     string  `json:"model"`      // search model spec (a models.Family's); default "mlp:390,390"
	Objective string  `json:"objective"`  // outer risk: irmv1, irmv1b, rex, cvar, worst-group or erm; default "irmv1"
	Beta      float64 `json:"beta"`       // weight of the mean loss added to the outer risk; default 0
	CVaRAlpha float64 `json:"cvar_alpha"` // tail fraction of the cvar objective; default 0.2
	OuterOn   string  `json:"outer_on"`   // "val" (the paper; default) or "train" (the reference code)

	OuterIters  int     `json:"outer_iters"`  // outer iterations T; default 30 (the MAPLE code's)
	InnerSteps  int     `json:"inner_steps"`  // inner SGD steps T_in per outer iteration; default 100
	InnerLR     float64 `json:"inner_lr"`     // inner SGD learning rate eta; default 0.1
	Momentum    float64 `json:"momentum"`     // inner SGD momentum mu; default 0.9
	WeightDecay float64 `json:"weight_decay"` // inner SGD weight decay lambda; default 0 (the MAPLE code's)
	InnerInit   string  `json:"inner_init"`   // theta_0 each outer iteration: fixed (default), fresh or warm
	InnerBatch  int     `json:"inner_batch"`  // inner minibatch size B; default 0 (full batch over the kept samples)
	// Precision of the inner training's matrix products: "f32" (default;
	// "" means f32) or "bf16" (bf16 inputs, float32 accumulation and
	// master weights; the onednn build on a CPU with native bf16). The
	// outer gradient, the hypergradient and every evaluation stay float32.
	Precision string `json:"precision,omitempty"`

	WeightLR float64 `json:"weight_lr"` // Adam learning rate of the sample weights w; default 0 (w frozen at 1: keep scores only, as the MAPLE code)
	KeepLR   float64 `json:"keep_lr"`   // Adam learning rate of the keep probabilities s; default 1.5
	ClipNorm float64 `json:"clip_norm"` // gradient norm clip before each Adam step; default 3

	Keep        float64 `json:"keep"`         // final keep fraction K/n; default 0.3 (1: no sparsity)
	Keep0       float64 `json:"keep0"`        // initial keep fraction K0/n; default 0.3
	AnnealStart float64 `json:"anneal_start"` // ts: keep size starts to anneal at ts*T; default 0.16
	AnnealEnd   float64 `json:"anneal_end"`   // te: keep size reaches K at te*T; default 0.6

	Seed uint64 `json:"seed"` // seed of every random draw; default 1

	// SelectIterate picks the iterate whose weights the final weighted ERM
	// trains on: "val" (default) the one whose inner model scored best on
	// the validation criterion (worst-group accuracy where the validation
	// split has groups, else the lowest outer risk), "final" the last one.
	SelectIterate string `json:"select_iterate"`
	// EvalEachIter trains the evaluation model on every iterate's weights
	// and records its validation and test figures (costly); default false.
	EvalEachIter bool `json:"eval_each_iter,omitempty"`
	// Recipe names a preset these settings follow ("maple-reference": the
	// MAPLE code's ColoredMNIST recipe, which alone may freeze w with a
	// weight learning rate of 0); default "".
	Recipe string `json:"recipe,omitempty"`

	// DetachSum holds the inner loss's weight sum S constant in the
	// hypergradient, as the MAPLE code does (.detach() of the normaliser):
	// h_i = -(eta/S) d_i instead of the exact -(eta/S)(d_i - sum_j u_j d_j
	// / S). An approximation from that code; default true (in the
	// ablation of docs/RESULTS.md the exact hypergradient, clamped mask
	// and summed IRMv1 together lost about 3 points on ColoredMNIST, seed
	// 1).
	DetachSum bool `json:"detach_sum,omitempty"`
	// MaskEps, when > 0, draws masks as the MAPLE code does: eps inside
	// the logarithms of the keep logit (that code's 1e-20) instead of the
	// keep probability clamped to [1e-6, 1-1e-6]; default 1e-20 (0: the
	// clamp).
	MaskEps float64 `json:"mask_eps,omitempty"`
	// OuterScale multiplies the outer risk and its gradient; 0 means 1.
	// Adam's steps do not depend on the scale but for its eps (1e-8,
	// against hypergradients of ~1e-7 on ColoredMNIST), so it matters
	// where the risk is written another way: the MAPLE code's IRMv1 risk
	// averages the environments' squared gradients where maple (and the
	// IRM paper) sums them, 0.5 with two environments. Default: the
	// objective's own (ObjectiveScale: 0.5 for irmv1, as that code; 0,
	// meaning 1, for the others).
	OuterScale float64 `json:"outer_scale,omitempty"`
	// InitParams is a .npy file of the search model's initial parameters
	// (flat float32, maple's layout: per layer the nin x nout weights row
	// by row, then the biases), used instead of the seeded
	// initialisation; read by the caller (Engine.SetInit), recorded here.
	// Default "" (seeded).
	InitParams string `json:"init_params,omitempty"`
}

// RecipeReference names the MAPLE code's ColoredMNIST recipe
// (core.ReferenceRecipe).
const RecipeReference = "maple-reference"

// maskEps is the range of Settings.MaskEps (see core.MaskEps).
var maskEps = setting.Interval{Lo: 0, Hi: 0.01}

// DefaultSettings returns the defaults documented on Settings.
func DefaultSettings() Settings {
	return Settings{Model: "mlp:390,390", Objective: "irmv1", CVaRAlpha: 0.2, OuterOn: "val",
		OuterIters: 30, InnerSteps: 100, InnerLR: 0.1, Momentum: 0.9, WeightDecay: 0, InnerInit: "fixed",
		WeightLR: 0, KeepLR: 1.5, ClipNorm: 3, Keep: 0.3, Keep0: 0.3, AnnealStart: 0.16, AnnealEnd: 0.6, Seed: 1,
		SelectIterate: "val", DetachSum: true, MaskEps: 1e-20, OuterScale: mustObjectiveScale("irmv1")}
}

// The names a setting may take where it takes one of a few: Check refuses
// any other, and completion offers them. Recipe may also be "" (none).
var (
	OuterOns       = []string{"val", "train"}
	InnerInits     = []string{"fixed", "fresh", "warm"}
	SelectIterates = []string{"val", "final"}
	Precisions     = []string{"f32", "bf16"}
	Recipes        = []string{RecipeReference}
)

// Check reports the first invalid setting (a *setting.Error naming its
// field).
func (s Settings) Check() error {
	if err := models.Check(s.Model); err != nil {
		return setting.Parsed("Settings.Model", err)
	}
	err := setting.First(
		setting.OneOf("Settings.Objective", s.Objective, Objectives()),
		setting.OneOf("Settings.OuterOn", s.OuterOn, OuterOns),
		setting.OneOf("Settings.InnerInit", s.InnerInit, InnerInits),
		setting.OneOf("Settings.SelectIterate", s.ResolvedSelectIterate(), SelectIterates),
		setting.OneOf("Settings.Recipe", s.Recipe, append([]string{""}, Recipes...)),
		setting.Count("Settings.OuterIters", s.OuterIters, 1),
		setting.Count("Settings.InnerSteps", s.InnerSteps, 1),
		setting.Int("Settings.InnerBatch", s.InnerBatch, 0),
		setting.OneOf("Settings.Precision", s.ResolvedPrecision(), Precisions),
		setting.Num("Settings.Beta", s.Beta, setting.NonNegative),
		setting.Num("Settings.CVaRAlpha", s.CVaRAlpha, setting.Fraction),
		setting.Num("Settings.Keep", s.Keep, setting.Fraction),
		setting.Num("Settings.Keep0", s.Keep0, setting.Fraction),
		setting.Num("Settings.AnnealStart", s.AnnealStart, setting.Below1),
		setting.Num("Settings.AnnealEnd", s.AnnealEnd, setting.Unit),
		setting.Num("Settings.ClipNorm", s.ClipNorm, setting.Positive),
		setting.Num("Settings.Momentum", s.Momentum, setting.Below1),
		setting.Num("Settings.WeightDecay", s.WeightDecay, setting.NonNegative),
		setting.Num("Settings.MaskEps", s.MaskEps, maskEps),
		setting.Num("Settings.OuterScale", s.OuterScale, setting.NonNegative),
	)
	switch {
	case err != nil:
		return err
	case s.Keep > s.Keep0:
		return &setting.Error{Field: "Settings.Keep", Value: fmt.Sprintf("%g", s.Keep), Text: fmt.Sprintf(" is above {Settings.Keep0} %g: the keep fraction can only shrink", s.Keep0)}
	case s.AnnealStart >= s.AnnealEnd:
		return &setting.Error{Field: "Settings.AnnealStart", Value: fmt.Sprintf("%g", s.AnnealStart), Text: fmt.Sprintf(" is not below {Settings.AnnealEnd} %g: the anneal window must not be empty", s.AnnealEnd)}
	}
	return s.checkRates(s.Rates())
}

// CheckRecorded is Check for the settings of a run that exists: its
// learning rates are held to what can work, not to setting.MaxRate
// (setting.Recorded), which bounds only rates given now.
func (s Settings) CheckRecorded() error {
	s.WeightLR, s.KeepLR, s.InnerLR = setting.Recorded(s.WeightLR), setting.Recorded(s.KeepLR), setting.Recorded(s.InnerLR)
	return s.Check()
}

// Recorded is l as a run that exists holds it (setting.Recorded).
func (l LearningRates) Recorded() LearningRates {
	return LearningRates{Weight: setting.Recorded(l.Weight), Keep: setting.Recorded(l.Keep), Inner: setting.Recorded(l.Inner)}
}

// Rates returns the learning rates the settings start a search with.
func (s Settings) Rates() LearningRates {
	return LearningRates{Weight: s.WeightLR, Keep: s.KeepLR, Inner: s.InnerLR}
}

// ResolvedPrecision is Precision, "" meaning "f32".
func (s Settings) ResolvedPrecision() string {
	if s.Precision == "" {
		return "f32"
	}
	return s.Precision
}

// CheckMachine reports a setting this build and CPU cannot compute
// (--precision bf16 without native bf16 products), naming its field.
// Check leaves it out: a run's settings hold on every machine, and one
// recorded in bf16 is read, shown and exported where it could not run.
// What starts a computation asks it: maple run and sweep before anything
// is created, the engine before it trains (a resume, a Slurm task).
func (s Settings) CheckMachine() error {
	if s.ResolvedPrecision() != "bf16" {
		return nil
	}
	if ok, why := nets.BF16(); !ok {
		return &setting.Error{Field: "Settings.Precision", Value: "bf16", Text: ": " + why + "; use {Settings.Precision} f32"}
	}
	return nil
}

// CheckRates checks rates for a search with these settings: a weight
// rate of 0 (w frozen) needs keep fractions below 1, else the search
// learns nothing (the maple-reference preset, as runs of it recorded
// before the rule, may).
func (s Settings) CheckRates(l LearningRates) error {
	return s.checkRates(l)
}

func (s Settings) checkRates(l LearningRates) error {
	if err := l.Check(); err != nil {
		return err
	}
	if l.Weight == 0 && s.Keep == 1 && s.Keep0 == 1 && s.Recipe != RecipeReference {
		return &setting.Error{Field: "Settings.WeightLR", Value: "0", Text: " freezes the sample weights, and {Settings.Keep} 1 keeps every sample: the search would learn nothing; give a weight rate above 0 or a keep fraction below 1"}
	}
	return nil
}

// LearningRates are the three rates that can change during a search.
type LearningRates struct {
	Weight float64 `json:"weight"` // Adam lr of w
	Keep   float64 `json:"keep"`   // Adam lr of s
	Inner  float64 `json:"inner"`  // inner SGD lr
}

// Check refuses rates out of their range (setting.Rate, setting.RateOrZero).
func (l LearningRates) Check() error {
	return setting.First(
		setting.Num("Settings.WeightLR", l.Weight, setting.RateOrZero), // 0 freezes w
		setting.Num("Settings.KeepLR", l.Keep, setting.Rate),
		setting.Num("Settings.InnerLR", l.Inner, setting.Rate),
	)
}

// Canonical returns s with each computation spelt one way, so that two
// settings that compute the same compare and hash equal: OuterScale 1 is
// written 0 (its default meaning, as runs recorded it before objectives
// had scales of their own).
func (s Settings) Canonical() Settings {
	if s.OuterScale == 1 {
		s.OuterScale = 0
	}
	return s
}

// ResolvedOuterScale is OuterScale, 0 meaning 1.
func (s Settings) ResolvedOuterScale() float64 {
	if s.OuterScale == 0 {
		return 1
	}
	return s.OuterScale
}

// Sparse tells whether the search keeps a subset of the samples (a keep
// fraction below 1).
func (s Settings) Sparse() bool { return s.Keep < 1 || s.Keep0 < 1 }

// ResolvedSelectIterate is SelectIterate, with "" (a run recorded
// before the setting existed) meaning "final", which is what such runs
// did.
func (s Settings) ResolvedSelectIterate() string {
	if s.SelectIterate == "" {
		return "final"
	}
	return s.SelectIterate
}
