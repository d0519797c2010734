package core

import (
	"fmt"
	"math"

	"github.com/maple-ood/maple/nets"
)

// Settings configures a MAPLE search. DefaultSettings gives the defaults
// stated on each field (the MAPLE paper's ColoredMNIST table where it has
// one).
type Settings struct {
	Model     string  // search model spec (nets.ParseSpec); default "mlp:390,390"
	Objective string  // outer risk: irmv1, irmv1b, rex, cvar, worst-group or erm; default "irmv1"
	Beta      float64 // weight of the mean loss added to the outer risk; default 0
	CVaRAlpha float64 // tail fraction of the cvar objective; default 0.2
	OuterOn   string  // "val" (the paper; default) or "train" (the reference code)

	OuterIters  int     // outer iterations T; default 100
	InnerSteps  int     // inner SGD steps T_in per outer iteration; default 100
	InnerLR     float64 // inner SGD learning rate eta; default 0.1
	Momentum    float64 // inner SGD momentum mu; default 0.9
	WeightDecay float64 // inner SGD weight decay lambda; default 0.001
	InnerInit   string  // theta_0 each outer iteration: fixed (default), fresh or warm

	WeightLR float64 // Adam learning rate of the sample weights w; default 0.25
	KeepLR   float64 // Adam learning rate of the keep probabilities s; default 0.05
	ClipNorm float64 // gradient norm clip before each Adam step; default 3

	Keep        float64 // final keep fraction K/n; default 1 (no sparsity)
	Keep0       float64 // initial keep fraction K0/n; default 1
	AnnealStart float64 // ts: keep size starts to anneal at ts*T; default 0.16
	AnnealEnd   float64 // te: keep size reaches K at te*T; default 0.6

	Seed uint64 // seed of every random draw; default 1
}

// DefaultSettings returns the defaults documented on Settings.
func DefaultSettings() Settings {
	return Settings{Model: "mlp:390,390", Objective: "irmv1", CVaRAlpha: 0.2, OuterOn: "val",
		OuterIters: 100, InnerSteps: 100, InnerLR: 0.1, Momentum: 0.9, WeightDecay: 0.001, InnerInit: "fixed",
		WeightLR: 0.25, KeepLR: 0.05, ClipNorm: 3, Keep: 1, Keep0: 1, AnnealStart: 0.16, AnnealEnd: 0.6, Seed: 1}
}

// Objectives lists the outer objectives.
var Objectives = []string{"irmv1", "irmv1b", "rex", "cvar", "worst-group", "erm"}

// Check reports the first invalid setting, naming it.
func (s Settings) Check() error {
	if _, err := nets.ParseSpec(s.Model); err != nil {
		return fmt.Errorf("core: model: %w", err)
	}
	ok := false
	for _, o := range Objectives {
		ok = ok || o == s.Objective
	}
	switch {
	case !ok:
		return fmt.Errorf("core: objective %q: want one of %v", s.Objective, Objectives)
	case s.OuterOn != "val" && s.OuterOn != "train":
		return fmt.Errorf("core: outer-on %q: want val or train", s.OuterOn)
	case s.InnerInit != "fixed" && s.InnerInit != "fresh" && s.InnerInit != "warm":
		return fmt.Errorf("core: inner-init %q: want fixed, fresh or warm", s.InnerInit)
	case s.OuterIters < 1 || s.InnerSteps < 1:
		return fmt.Errorf("core: outer iterations %d and inner steps %d must be at least 1", s.OuterIters, s.InnerSteps)
	case s.CVaRAlpha <= 0 || s.CVaRAlpha > 1:
		return fmt.Errorf("core: cvar alpha %g must lie in (0, 1]", s.CVaRAlpha)
	case s.Keep <= 0 || s.Keep > 1 || s.Keep0 <= 0 || s.Keep0 > 1 || s.Keep > s.Keep0:
		return fmt.Errorf("core: keep fractions %g (final) and %g (initial) must satisfy 0 < keep <= keep0 <= 1", s.Keep, s.Keep0)
	case s.AnnealStart < 0 || s.AnnealEnd > 1 || s.AnnealStart >= s.AnnealEnd:
		return fmt.Errorf("core: anneal window [%g, %g] must satisfy 0 <= start < end <= 1", s.AnnealStart, s.AnnealEnd)
	case s.ClipNorm <= 0 || s.Momentum < 0 || s.Momentum >= 1 || s.WeightDecay < 0:
		return fmt.Errorf("core: clip norm %g must be > 0, momentum %g in [0,1), weight decay %g >= 0", s.ClipNorm, s.Momentum, s.WeightDecay)
	}
	return LearningRates{Weight: s.WeightLR, Keep: s.KeepLR, Inner: s.InnerLR}.Check()
}

// LearningRates are the three rates that can change during a search.
type LearningRates struct {
	Weight float64 `json:"weight"` // Adam lr of w
	Keep   float64 `json:"keep"`   // Adam lr of s
	Inner  float64 `json:"inner"`  // inner SGD lr
}

// Check refuses non-positive or non-finite rates.
func (l LearningRates) Check() error {
	for _, v := range []struct {
		name string
		v    float64
	}{{"weight", l.Weight}, {"keep", l.Keep}, {"inner", l.Inner}} {
		if !(v.v > 0) || math.IsInf(v.v, 0) {
			return fmt.Errorf("core: %s learning rate %g must be a positive number", v.name, v.v)
		}
	}
	return nil
}

func (s Settings) sparse() bool { return s.Keep < 1 || s.Keep0 < 1 }
