package runs

import (
	"testing"

	"github.com/maple-ood/maple/core"
)

// TestRatesInForce: the rates in force follow from the recorded history
// alone: run.json's rates, then each set_lr event up to the iteration
// asked about, whether the change was made live or at a resume.
func TestRatesInForce(t *testing.T) {
	started := core.LearningRates{Weight: 0.25, Keep: 1.5, Inner: 0.1}
	live := core.LearningRates{Weight: 0.125, Keep: 1.5, Inner: 0.1}
	resumed := core.LearningRates{Weight: 0.125, Keep: 1.5, Inner: 0.05}
	setLR := func(iter int, lr core.LearningRates) core.Event {
		return core.Event{Kind: core.EventSetLR, Iter: iter, LR: &lr}
	}
	cfg := DefaultConfig("synthetic")
	cfg.Settings.WeightLR, cfg.Settings.KeepLR, cfg.Settings.InnerLR = started.Weight, started.Keep, started.Inner
	for _, tc := range []struct {
		name   string
		events []core.Event
		iter   int
		want   core.LearningRates
		from   string
	}{
		{"set at create", nil, Latest, started, "as started"},
		{"set at create, other events", []core.Event{{Kind: core.EventPause, Iter: 2}, {Kind: core.EventCheckpoint, Iter: 2}, {Kind: core.EventResume, Iter: 2}}, Latest, started, "as started"},
		{"changed live", []core.Event{{Kind: core.EventPause, Iter: 4}, setLR(4, live), {Kind: core.EventResume, Iter: 4}}, Latest, live, "set before iteration 5"},
		{"changed live, after the change", []core.Event{setLR(4, live)}, 4, live, "set before iteration 5"},
		{"changed live, before the change", []core.Event{setLR(4, live)}, 3, started, "as started"},
		{"changed at resume", []core.Event{setLR(4, live), {Kind: core.EventResume, Iter: 6, Restart: true}, setLR(6, resumed)}, Latest, resumed, "set before iteration 7"},
		{"changed at resume, resumed from before it", []core.Event{setLR(4, live), {Kind: core.EventResume, Iter: 6, Restart: true}, setLR(6, resumed)}, 5, live, "set before iteration 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RatesInForce(&cfg, tc.events, tc.iter)
			if got.LearningRates != tc.want || got.From() != tc.from {
				t.Errorf("%+v (%s), want %+v (%s)", got.LearningRates, got.From(), tc.want, tc.from)
			}
		})
	}
}
