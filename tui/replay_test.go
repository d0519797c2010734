package tui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/maple-ood/maple/export"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/train"
)

// finishedRun runs a small search to its end in a runs directory of its
// own and returns the directory.
func finishedRun(t *testing.T) (dir string, r *runs.Run) {
	t.Helper()
	dir = t.TempDir()
	r = finishedTinyRun(t, dir)
	return dir, r
}

// TestReplayKeys: in the runs browser's replay of a search, Ctrl-C
// leaves as it does from the list (it was ignored), and e, which the
// footer offers, exports the run's weights and says so (its command was
// dropped: nothing was written and the note stayed at "exporting").
func TestReplayKeys(t *testing.T) {
	dir, r := finishedRun(t)
	for _, c := range []struct {
		name  string
		check func(t *testing.T, b *Browser)
	}{
		{"ctrl+c leaves", func(t *testing.T, b *Browser) {
			if cmd := bpress(b, keyMsg("ctrl+c")); !isQuit(cmd) {
				t.Error("ctrl+c in the replay did not quit")
			}
		}},
		{"e exports", func(t *testing.T, b *Browser) {
			os.Remove(r.Path(runs.WeightsCSV))
			_, cmd := b.Update(keyMsg("e"))
			if cmd == nil {
				t.Fatal("e in the replay gave no command")
			}
			b.Update(cmd())
			if _, err := os.Stat(r.Path(runs.WeightsCSV)); err != nil {
				t.Errorf("weights not exported: %v", err)
			}
			if out := b.Render(); !strings.Contains(out, "exported") || strings.Contains(out, "not running") {
				t.Errorf("the replay does not say the export was written:\n%s", out)
			}
			// The note names what export.json holds: the selected
			// iterate, not the checkpoint's iteration alone.
			man, err := export.ReadExport(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("exported the validation-selected iterate %d of %d:", man.Iterate, man.Iteration)
			if man.Iterate == 0 || !strings.Contains(b.replay.note, want) {
				t.Errorf("note %q, want %q", b.replay.note, want)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBrowser(dir, 120, 40)
			bpress(b, keyMsg("enter"))
			if b.mode != modeRun || b.replay == nil {
				t.Fatalf("enter did not open the replay (mode %d)", b.mode)
			}
			c.check(t, b)
		})
	}
}

// finishedTinyRun runs a 3-iteration linear search to its end in dir and
// returns it, closed.
func finishedTinyRun(t *testing.T, dir string) *runs.Run {
	t.Helper()
	cfg := testConfig()
	cfg.Settings.OuterIters, cfg.Settings.InnerSteps, cfg.CheckpointEvery = 3, 5, 1
	cfg.Eval = train.DefaultEval()
	cfg.Eval.Model, cfg.Eval.Steps = "linear", 5
	r, err := runs.Open(dir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session.Execute(context.Background(), r, nil, session.Options{}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	return r
}
