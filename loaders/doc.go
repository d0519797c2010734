// Package loaders owns maple's datasets: one Dataset type (features N x D
// float32 with an optional image shape, labels, environment, group,
// spurious attribute and a stable sample id per sample), the train /
// validation / test Splits, the datasets of DESIGN.md section 3 and the
// readers of their published file formats (IDX, CIFAR-10 binary, CSV,
// .npy, JPEG and PNG images).
//
// A Spec names a dataset and its options; Spec.Load resolves the data
// directory (flag, $MAPLE_DATA_DIR, os.UserCacheDir()/maple), fetches a
// missing MNIST or Fashion-MNIST file with its digests verified, and
// builds the splits. Every malformed input is an error naming the file,
// what was wrong and what to do.
package loaders
