package train

import "github.com/maple-ood/maple/record"

// EvalSettings configures the final weighted ERM and the baselines: run.json's
// evaluation settings, kept in package record (record.EvalSettings) with
// their defaults and checks.
type EvalSettings = record.EvalSettings

// DefaultEval returns the defaults documented on EvalSettings.
func DefaultEval() EvalSettings { return record.DefaultEval() }

// Optimizers are the evaluation's optimizers (EvalSettings.Optimizer; ""
// is sgd).
var Optimizers = record.Optimizers
