// Package baselines holds maple's comparison methods, one file each:
// erm and upweight (weighted ERM with fixed weights), oracle, irmv1 and
// rex (ERM plus the penalty of the outer objective of the same name),
// groupdro, cvar, jtt, lff, sparseirm and sparseirm-rex, mrm, bayesirm,
// bayesirm-code, and dfr (an L1 logistic regression, l1logreg.go); and
// the maple search as a Method (maple.go). A Method is a Trainer (a
// comparison method: it trains its own way through a train.Trainer and
// selects on validation) or a Searcher (maple, which package session
// runs through core's Engine); the registry (baselines.go) lists them in
// the order --method's help and completion show, with
// what each reads beyond y (Supervision), the evaluation settings only
// some of them read (MethodFields, each method's OwnFields) and the
// published recipes (Recipe). It imports core for the outer objectives'
// penalties and the engine's Adam; core does not import it.
package baselines
