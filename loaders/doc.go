// Package loaders builds maple's datasets into the types of package
// dataset (a Dataset per split: features N x D float32 with an optional
// image shape, labels, environment, group, spurious attribute and a
// stable sample id per sample; the train / validation / test Splits): the
// datasets listed in docs/ARCHITECTURE.md and the readers of their
// published file formats (IDX, CIFAR-10 binary, CSV, .npy, JPEG and PNG
// images).
//
// Each dataset is a Source in its builder's file, listed once in sources
// (sources.go): its name, the options only it reads, its checks, its
// defaults and its loader; Names, Spec.Check, Spec.Effective and
// Spec.Load ask the registry.
//
// A Spec names a dataset and its options; Spec.Load resolves the data
// directory (flag, $MAPLE_DATA_DIR, os.UserCacheDir()/maple), fetches a
// missing MNIST or Fashion-MNIST file with its digests verified, and
// builds the splits. Spec.Check refuses options that cannot work, naming
// the flag, before anything is read. Every malformed input is an error
// naming the file, what was wrong and what to do.
package loaders
