package report

import (
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// TestShowInterrupted: maple show of an interrupted run (a signal, a
// crash: no summary) says how to go on, as a stopped run's does; it gave
// no command.
func TestShowInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		check  *core.State // the checkpoint written, nil for none
		want   string
	}{
		{"search with a checkpoint", "maple", &core.State{Iter: 4, LR: core.LearningRates{Weight: 0.1, Keep: 0.1, Inner: 0.1}}, "interrupted at iteration 4; its state is checkpointed: continue with maple resume "},
		{"search before its first checkpoint", "maple", nil, "starts again from iteration 1: maple resume "},
		{"baseline", "erm", nil, "a baseline keeps no checkpoint: maple resume "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := runs.DefaultConfig("synthetic")
			cfg.Method = tc.method
			r, err := runs.Open(dir).Create(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				if err := r.WriteCheckpoint(tc.check); err != nil {
					t.Fatal(err)
				}
			}
			r.Close() // interrupted: no summary, nobody holds it
			var out strings.Builder
			WriteShow(&out, r.Dir)
			if want := tc.want + r.Config.ID + " --runs-dir " + dir; !strings.Contains(out.String(), want) {
				t.Errorf("show lacks %q:\n%s", want, out.String())
			}
		})
	}
}

// TestShowSearchFrom: maple show names the run whose search a run took
// (a sweep's cell that trained only its final model), and says nothing
// of it for a run that searched.
func TestShowSearchFrom(t *testing.T) {
	for _, from := range []string{"20261127-030100-01", ""} {
		dir := t.TempDir()
		cfg := runs.DefaultConfig("synthetic")
		cfg.SearchFrom = from
		r, err := runs.Open(dir).Create(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		var out strings.Builder
		WriteShow(&out, r.Dir)
		if got := strings.Contains(out.String(), "searched by: run "+from+" "); got != (from != "") {
			t.Errorf("search_from %q: maple show says\n%s", from, out.String())
		}
	}
}
