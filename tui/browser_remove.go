package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
)

// The runs browser's archive (A) and delete (D) keys: on the selected
// runs, else the run under the cursor, after y, as maple archive and
// maple rm do (a run a process holds is refused by runs.Store.Archive and
// runs.Remove; a sweep's cell is named as one its table loses).

// removal is an archive or delete that awaits its y.
type removal struct {
	ids     []string
	sweeps  []string // the sweeps the runs are cells of
	archive bool     // archive; else delete
}

// removedMsg reports an archive or delete done from the browser: the
// runs it moved or deleted, and the error that stopped it.
type removedMsg struct {
	done    []string
	archive bool
	err     error
}

// askRemove asks whether to archive (or delete) the selected runs, else
// the run under the cursor.
func (b *Browser) askRemove(archive bool) {
	l := b.runList
	var targets []runs.Info
	for _, in := range l.view {
		if l.selected[in.ID] {
			targets = append(targets, in)
		}
	}
	if len(targets) == 0 {
		if in, ok := l.current(); ok {
			targets = append(targets, in)
		}
	}
	verb := map[bool]string{true: "archive", false: "delete"}[archive]
	if len(targets) == 0 {
		b.note = "no run to " + verb
		return
	}
	var ids, cells []string
	for _, in := range targets {
		if in.Status.Live() {
			b.note = fmt.Sprintf("%s is %s: stop it first (x); nothing to %s", in.ID, in.Status, verb)
			return
		}
		ids = append(ids, in.ID)
		if in.Sweep != "" {
			cells = append(cells, in.Sweep)
		}
	}
	what := ids[0]
	if len(ids) > 1 {
		what = fmt.Sprintf("%d runs (%s)", len(ids), strings.Join(ids, ", "))
	}
	slices.Sort(cells)
	cells = slices.Compact(cells)
	b.removeAsk = &removal{ids: ids, sweeps: cells, archive: archive}
	b.note = verb + " " + what
	if !archive {
		b.note += " for good"
	}
	if len(cells) > 0 {
		b.note += fmt.Sprintf(" (sweep %s's table loses it; a rerun of the sweep runs it again)", strings.Join(cells, ", "))
	}
	b.note += "? y/n"
}

// removeAnswer takes the answer: y archives or deletes the runs, in a
// tea.Cmd; any other key leaves them.
func (b *Browser) removeAnswer(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	r := b.removeAsk
	b.removeAsk = nil
	if k.String() != "y" {
		b.note = "nothing " + map[bool]string{true: "archived", false: "deleted"}[r.archive]
		return b, nil
	}
	dir := b.runList.dir
	return b, func() tea.Msg {
		m := removedMsg{archive: r.archive}
		// A cell of a sweep that runs (between its cells too) is
		// refused, as maple rm refuses it; nothing is touched.
		for _, s := range r.sweeps {
			if sweeps.Running(dir, s) {
				m.err = fmt.Errorf("sweep %s is running: stop it first (maple stop %s); nothing %s", s, s, map[bool]string{true: "archived", false: "deleted"}[r.archive])
				return m
			}
		}
		for _, id := range r.ids {
			var err error
			if r.archive {
				err = runs.Open(dir).Archive(id)
			} else {
				err = runs.Remove(runs.Open(dir).RunDir(id))
			}
			if err != nil {
				m.err = fmt.Errorf("run %s: %w", id, err)
				break
			}
			m.done = append(m.done, id)
		}
		return m
	}
}

// removed reports an archive or delete and reads the listing again.
func (b *Browser) removed(m removedMsg) tea.Cmd {
	for _, id := range m.done {
		delete(b.runList.selected, id)
	}
	done := map[bool]string{true: "archived", false: "deleted"}[m.archive]
	b.note = fmt.Sprintf("%s %d run(s)", done, len(m.done))
	if m.archive && len(m.done) > 0 {
		b.note += "; maple ls --archived lists them, maple archive --restore ID brings one back"
	}
	if m.err != nil {
		b.note += "; " + m.err.Error()
	}
	return b.loadCmd()
}
