package runs

import (
	"testing"

	"github.com/maple-ood/maple/core"
)

// TestStatBaselineTime: a finished baseline lists how long it trained
// (it records no iterations, whose elapsed time a search lists).
func TestStatBaselineTime(t *testing.T) {
	r, err := Create(t.TempDir(), Config{Method: "lff"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := Stat(r.Dir).DurationText(); got != "-" {
		t.Errorf("before it ends: %q, want -", got)
	}
	if err := r.WriteSummary(&Summary{Done: true, Status: core.StatusDone, Result: &core.Result{}, Seconds: 90.2}); err != nil {
		t.Fatal(err)
	}
	if got := Stat(r.Dir).DurationText(); got != "1m30s" {
		t.Errorf("done: %q, want 1m30s", got)
	}
}
