// Package dataset holds the in-memory types every part of maple shares:
// a split of samples with labels, environments, groups and ids
// (Dataset), and the train/validation/test triple (Splits). It does no
// I/O, so that importing it links neither net/http nor image decoders;
// package loaders reads and builds datasets into these types. See
// docs/ARCHITECTURE.md.
package dataset
