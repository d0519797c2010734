// Package loaders owns maple's datasets: one Dataset type (features N x D
// float32 with an optional image shape, labels, environment, group,
// spurious attribute and a stable sample id per sample), the train /
// validation / test Splits, and the built-in and file-backed datasets of
// DESIGN.md section 3.
//
// Built so far: the built-in synthetic dataset (the MAPLE paper's linear
// case), generated from a seed with no files.
package loaders
