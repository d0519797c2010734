package runs

import (
	"fmt"
	"strconv"

	"github.com/maple-ood/maple/core"
)

// Flags returns every setting of c that can change its results, keyed by
// its command-line flag (the seed and the data's location left out), as
// tables and comparisons name them.
func Flags(c Config) map[string]string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	i := strconv.Itoa
	d, s, e := c.Dataset, c.Settings, c.Eval
	if c.Method != "maple" {
		s = core.Settings{} // a baseline runs no search
	}
	return map[string]string{
		"dataset": d.Name, "train-size": i(d.TrainSize), "corr": d.Corr, "label-noise": f(d.LabelNoise),
		"downsample": i(d.Downsample), "image-size": i(d.ImageSize), "features": d.Features, "csv": d.CSV, "cmnist-envs": d.EnvSplit(),
		"method": c.Method,
		"model":  s.Model, "objective": s.Objective, "beta": f(s.Beta), "cvar-alpha": f(s.CVaRAlpha), "outer-on": s.OuterOn,
		"outer-iters": i(s.OuterIters), "inner-steps": i(s.InnerSteps), "inner-batch": i(s.InnerBatch), "precision": precision(s), "inner-lr": f(s.InnerLR), "momentum": f(s.Momentum),
		"weight-decay": f(s.WeightDecay), "inner-init": s.InnerInit, "weight-lr": f(s.WeightLR), "keep-lr": f(s.KeepLR),
		"clip-norm": f(s.ClipNorm), "keep": f(s.Keep), "keep0": f(s.Keep0), "anneal-start": f(s.AnnealStart),
		"anneal-end": f(s.AnnealEnd), "select-iterate": s.SelectIterate, "recipe": s.Recipe,
		"eval-each-iter": strconv.FormatBool(s.EvalEachIter), "ref-train-acc": f(e.RefTrainAcc),
		"eval-model": e.Model, "eval-steps": i(e.Steps), "eval-lr": f(e.LR), "eval-momentum": f(e.Momentum),
		"eval-weight-decay": f(e.WeightDecay), "eval-every": i(e.EvalEvery), "eval-min-step": i(e.MinStep),
		"penalty": f(e.Penalty), "penalty-anneal": i(e.PenaltyAnneal), "dro-step": f(e.DROStep),
		"eval-cvar-alpha": f(e.CVaRAlpha), "jtt-steps": i(e.JTTSteps), "jtt-up": f(e.JTTUp),
		"eval-optimizer": e.Optimizer, "l2": f(e.L2),
		"detach-sum": strconv.FormatBool(s.DetachSum), "mask-eps": f(s.MaskEps), "outer-scale": f(s.OuterScale), "init-params": s.InitParams,
		"eval-same-init": strconv.FormatBool(e.SameInit),
	}
}

func precision(s core.Settings) string {
	if s.Precision == "" && s.Model != "" {
		return "f32"
	}
	return s.Precision
}

// MethodName is how listings name the run's method: a baseline's name, or
// maple/OBJECTIVE for a search.
func (c Config) MethodName() string {
	if c.Method == "maple" {
		return "maple/" + c.Settings.Objective
	}
	return c.Method
}

// RatesNow returns the learning rates a search has in force (those of its
// latest checkpoint, else its last rate change, else its config) and where
// they come from, for people.
func RatesNow(dir string, cfg *Config) (core.LearningRates, string) {
	lr, from := cfg.Settings.Rates(), "as started"
	events, _ := ReadEvents(dir)
	for _, e := range events {
		if e.Kind == core.EventSetLR && e.LR != nil {
			lr, from = *e.LR, fmt.Sprintf("set before iteration %d", e.Iter+1)
		}
	}
	if st, err := ReadCheckpoint(dir, func(string) {}); err == nil && st != nil && st.LR != lr {
		lr, from = st.LR, fmt.Sprintf("from the checkpoint at iteration %d", st.Iter)
	}
	return lr, from
}
