package baselines

import (
	"github.com/maple-ood/maple/setting"
)

// SharedSpace is what a random search draws for every baseline: the
// evaluation's learning rate and weight decay.
var SharedSpace = []setting.Param{
	{Field: "EvalSettings.LR", Dist: setting.LogUniform{Lo: 1e-3, Hi: 1}},
	{Field: "EvalSettings.WeightDecay", Dist: setting.LogUniform{Lo: 1e-6, Hi: 1e-2}},
}

// MapleSpace is the distribution a random search draws a maple search's
// settings from: its three learning rates, around the reference preset's
// (the defaults') keep and inner rates; the weight rate is drawn above 0,
// so a random search explores learnt weights where the defaults freeze
// them.
var MapleSpace = []setting.Param{
	{Field: "Settings.WeightLR", Dist: setting.LogUniform{Lo: 0.03, Hi: 1}},
	{Field: "Settings.KeepLR", Dist: setting.LogUniform{Lo: 0.01, Hi: 3}},
	{Field: "Settings.InnerLR", Dist: setting.LogUniform{Lo: 0.02, Hi: 0.3}},
}

// SearchSpace returns the distributions a random search draws method's
// settings from (maple sweep --search random), in DomainBed's style: for
// a baseline the shared evaluation's it reads, then the method's own;
// for a search (Searcher), its own (maple: MapleSpace).
func SearchSpace(method string) []setting.Param {
	m, _ := lookup(method)
	var out []setting.Param
	if _, search := m.(Searcher); !search {
		for _, p := range SharedSpace {
			if ReadsShared(method, p.Field) {
				out = append(out, p)
			}
		}
	}
	if t, ok := m.(Tunable); ok {
		out = append(out, t.SearchSpace()...)
	}
	return out
}

// The penalty methods: DomainBed's irm_lambda, vrex_lambda 10^U(-1, 5)
// and their anneal iterations 10^U(0, 4), the latter bounded by maple's
// shorter trainings.
func (irmPenalty) SearchSpace() []setting.Param   { return penaltySpace }
func (sparseIRM) SearchSpace() []setting.Param    { return penaltySpace }
func (bayesIRM) SearchSpace() []setting.Param     { return penaltySpace }
func (bayesIRMCode) SearchSpace() []setting.Param { return penaltySpace }

var penaltySpace = []setting.Param{
	{Field: "EvalSettings.Penalty", Dist: setting.LogUniform{Lo: 1e-1, Hi: 1e5}},
	{Field: "EvalSettings.PenaltyAnneal", Dist: setting.LogUniform{Lo: 1, Hi: 400}, Int: true},
}

// groupDRO: DomainBed's groupdro_eta 10^U(-3, -1).
func (groupDRO) SearchSpace() []setting.Param {
	return []setting.Param{{Field: "EvalSettings.DROStep", Dist: setting.LogUniform{Lo: 1e-3, Hi: 1e-1}}}
}

func (cvarMethod) SearchSpace() []setting.Param {
	return []setting.Param{{Field: "EvalSettings.CVaRAlpha", Dist: setting.Uniform{Lo: 0.05, Hi: 0.5}}}
}

// jtt: the first ERM's length and the up-weight (JTT's paper searches
// lambda_up from 4 to 100).
func (jtt) SearchSpace() []setting.Param {
	return []setting.Param{
		{Field: "EvalSettings.JTTSteps", Dist: setting.Uniform{Lo: 20, Hi: 300}, Int: true},
		{Field: "EvalSettings.JTTUp", Dist: setting.LogUniform{Lo: 2, Hi: 100}},
	}
}
