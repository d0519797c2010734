// Package models is the registry of model families: the Model interface
// the search and the trainers call (flat parameters, forward, backprop,
// VJP, JVP, optional bf16), the Family interface that makes models from a
// spec ("mlp:390,390", "g:cnn:16,32"), Register for a family from another
// package, and package nets' family (linear, mlp, cnn, cnns). It sits
// below train and core, which both make models.
package models
