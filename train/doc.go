// Package train is the trainer of maple's evaluation model and of the
// comparison methods: EvalSettings (the final weighted ERM's and the
// baselines' settings, package record's with their checks), a Trainer that
// trains one fresh model on a split set and selects its checkpoint on
// validation (worst-group accuracy where there are groups), the Result it
// selects (package record's: with its curve, its oracle figures and the
// reference protocol's), WeightedERM, progress and stages reported through
// the context, and the linear case's spurious share. It knows neither the
// search (package core) nor the methods (package baselines), which both
// call it.
package train
