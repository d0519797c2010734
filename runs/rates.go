package runs

import (
	"fmt"
	"math"

	"github.com/maple-ood/maple/record"
)

// Rates are the learning rates a search has in force and since when.
//
// A search's rates have one record: run.json holds those it started
// with, and events.jsonl each change (a set_lr event, whether made live
// or by maple resume --inner-lr and the like), in order. The engine's
// state (a checkpoint's LR) and each iteration's record (a Snapshot's LR)
// follow from these; RatesInForce reads them back for the dashboard,
// maple show and resume alike.
type Rates struct {
	record.LearningRates
	// Set is the iteration whose end the rates were set at (set_lr's
	// Iter: in force from iteration Set+1); -1 when they are those the
	// run started with.
	Set int
}

// From says where the rates come from, for people.
func (r Rates) From() string {
	if r.Set < 0 {
		return "as started"
	}
	return fmt.Sprintf("set before iteration %d", r.Set+1)
}

// RatesInForce returns the learning rates the search of cfg goes on with
// after iteration iter, from its recorded history: the rates it started
// with, changed by each rate change recorded at the end of iteration iter
// or earlier. Pass Latest for the rates in force now; a resume passes
// the iteration of the checkpoint it continues from.
func RatesInForce(cfg *Config, events []record.Event, iter int) Rates {
	r := Rates{LearningRates: cfg.Settings.Rates(), Set: -1}
	for _, e := range events {
		if e.Kind == record.EventSetLR && e.LR != nil && e.Iter <= iter {
			r = Rates{LearningRates: *e.LR, Set: e.Iter}
		}
	}
	return r
}

// Latest is the iteration after every one on record (RatesInForce).
const Latest = math.MaxInt

// RatesNow returns the learning rates the search of the run in dir has
// in force now (RatesInForce; events.jsonl's damaged lines skipped).
func RatesNow(dir string, cfg *Config) Rates {
	events, _ := ReadEvents(dir)
	return RatesInForce(cfg, events, Latest)
}
