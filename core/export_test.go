package core

import "testing"

// What the external tests of package core (pinned_test.go, which also
// trains the methods of package baselines, a package that imports core)
// use of the internal tests' helpers.
var (
	EngineSettings = engineSettings
	RunAll         = func(t *testing.T, e *Engine) Status { return runAll(t, e, &scriptRec{}) }
)
