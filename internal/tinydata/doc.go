// Package tinydata is what the tests of core, train and baselines share:
// tiny seeded datasets and the hash of pinned bits (TestPinnedWeights,
// TestMethodOwnFields). A change to what it draws changes the pins.
package tinydata
