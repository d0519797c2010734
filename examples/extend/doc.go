// Package extend shows, and its test proves, that maple is extended from
// outside its packages by one file and one registration line per piece:
// a dataset (dataset.go, loaders.Register), a comparison method
// (method.go, baselines.Register), an outer objective (objective.go,
// core.RegisterObjective) and a model family (model.go,
// models.Register). Importing the package for its side effects makes
// them work everywhere a built-in one does: maple run, maple sweep,
// --help and completion. A piece also implements what it needs of its
// registry's optional interfaces: the dataset its default model
// (loaders.ModelDefaulter) and its check (loaders.Checker).
package extend
