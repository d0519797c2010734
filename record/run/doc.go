// Package run holds run.json's type, Config: everything needed to repeat
// or resume a run (its dataset's Spec, method, record.Settings and
// record.EvalSettings, sweep, labels), with its hashes (Hash,
// SearchHash), its defaults (DefaultConfig) and the Build it started on
// (CurrentBuild). It sits apart from package record because a dataset's
// Spec brings the loaders, and with them net/http, which core, importing
// record, must not link. Packages runs and config re-export its names.
package run
