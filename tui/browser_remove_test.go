package tui

import (
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
)

// TestBrowserArchiveDelete: A archives and D deletes the selected runs
// (else the one under the cursor) after y, as maple archive and maple rm
// do; any other key leaves them; a running run is refused; a sweep's
// cell is named as one its table loses.
func TestBrowserArchiveDelete(t *testing.T) {
	for _, c := range []struct {
		name    string
		keys    []string // before the key
		key     string
		answer  string
		ask     string // in the question
		left    int    // runs listed after
		said    string
		archive int // runs in the archive after
	}{
		{"archive the cursor's run", nil, "A", "y", "archive 20261122-080000-01? y/n", 2, "archived 1 run(s)", 1},
		{"delete the selected runs", []string{"space", "down", "space"}, "D", "y", "delete 2 runs (20261122-080000-01, 20261122-080000-02) for good? y/n", 1, "deleted 2 run(s)", 0},
		{"n leaves them", nil, "D", "n", "for good? y/n", 3, "nothing deleted", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fakeRuns(t)
			b := newBrowser(dir, 160, 30)
			for _, k := range c.keys {
				bpress(b, keyMsg(k))
			}
			bpress(b, keyMsg(c.key))
			if b.removeAsk == nil || !strings.Contains(b.note, c.ask) {
				t.Fatalf("%s: ask %+v, note %q, want %q", c.key, b.removeAsk, b.note, c.ask)
			}
			bpress(b, keyMsg(c.answer))
			if len(b.runList.list) != c.left || !strings.Contains(b.note, c.said) {
				t.Errorf("after %s: %d runs listed (want %d), note %q (want %q)", c.answer, len(b.runList.list), c.left, b.note, c.said)
			}
			archived, _ := os.ReadDir(runs.Open(dir).ArchiveDir())
			if len(archived) != c.archive {
				t.Errorf("%d runs in the archive, want %d", len(archived), c.archive)
			}
		})
	}
	t.Run("a running run is refused", func(t *testing.T) {
		b := newBrowser(fakeRuns(t), 160, 30)
		b.runList.list[0].Status = core.StatusRunning
		b.runList.refresh()
		bpress(b, keyMsg("D"))
		if b.removeAsk != nil || !strings.Contains(b.note, "stop it first") {
			t.Errorf("D on a running run: ask %+v, note %q", b.removeAsk, b.note)
		}
	})
	t.Run("a sweep's cell", func(t *testing.T) {
		b := newBrowser(fakeRuns(t), 160, 30)
		b.runList.list[0].Sweep = "cm"
		b.runList.refresh()
		bpress(b, keyMsg("A"))
		if !strings.Contains(b.note, "(sweep cm's table loses it; a rerun of the sweep runs it again)? y/n") {
			t.Errorf("A on a sweep's cell: note %q", b.note)
		}
		// At 80 columns the question wraps: its y/n stays on the screen.
		b.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		if out := ansi.Strip(b.Render()); !strings.Contains(out, "y/n") {
			t.Errorf("the question's y/n is cut at 80 columns:\n%s", out)
		}
	})
	t.Run("a cell of a running sweep is refused", func(t *testing.T) {
		// maple rm refuses it between the sweep's cells too; so does D.
		dir := fakeRuns(t)
		b := newBrowser(dir, 160, 30)
		b.runList.list[0].Sweep = "cm"
		b.runList.refresh()
		id := b.runList.list[0].ID
		hold, err := sweeps.Hold(dir, "cm")
		if err != nil {
			t.Fatal(err)
		}
		defer hold.Release()
		bpress(b, keyMsg("D"))
		bpress(b, keyMsg("y"))
		if !strings.Contains(b.note, "sweep cm is running: stop it first") {
			t.Errorf("D, y on a cell of a running sweep: note %q", b.note)
		}
		if _, err := os.Stat(runs.Open(dir).RunDir(id)); err != nil {
			t.Errorf("run %s was deleted: %v", id, err)
		}
	})
}
