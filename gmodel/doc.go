// Package gmodel makes gorgonia (gorgonia.org/gorgonia) graphs maple
// models: any graph that maps a batch of inputs to logits, declared as an
// Arch (its parameters and its Logits function), becomes a models.Model
// that the bilevel search and the trainers drive like the hand-written
// models of package nets, which stay the default and the fast path.
//
// The specs g:mlp:W1,W2,..., g:cnn:C1,C2 and g:resnet:C,B are built in;
// Register adds an architecture of one's own (see the package example and
// examples/gorgonia). The package registers its family with core when it
// is imported: main imports it for that.
//
// Parameters go in and out through the flat vector the engine keeps;
// each Forward, VJP and JVP copies them into the graph's tensors. A graph
// has fixed shapes, so a model keeps one graph per kind (forward, VJP,
// JVP) and batch size, the most recent few cached; a batch of n rows runs
// in nearly equal chunks of at most MaxRows.
//
// gorgonia has no forward mode. The per-sample JVP the hypergradient
// needs is computed by double backward (exact) where that is right for
// every op of the graph, else by a float64 central difference along the
// direction. Which one is chosen when the model is built, by comparing
// the two on a probe batch: a graph whose second derivative gorgonia gets
// wrong (its batch norm) uses the central difference, and one whose
// Arch insists on double backward is refused with an error naming the
// ops that are not known to be right.
package gmodel
