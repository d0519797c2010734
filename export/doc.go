// Package export writes what a finished run holds in the forms other
// tools read: its weights as CSV or .npy for another trainer (To, and
// WriteExports, WriteSampleWeights and Latest, which write them, with
// export.json: Export), its
// per-iteration records as CSV or a TensorBoard event file with
// histograms and the hparams plugin's records (MetricsCSV, TensorBoard),
// its final training's validation checks (TrainingCSV), and the weighted
// ERM of another architecture on its learned weights (Eval). The run on
// disk itself is package runs'.
package export
