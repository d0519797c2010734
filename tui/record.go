package tui

import (
	"strconv"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// runRecord is what a dashboard knows of its run: the config and the
// iterations and events recorded so far. The dashboard writes it; its
// panes read it through a pointer and keep their own view state.
type runRecord struct {
	cfg    runs.Config
	snaps  []*core.Snapshot
	events []core.Event
	ended  bool // the search has ended (or the view is of a finished run)
}

// last is the latest iteration (nil before the first).
func (r *runRecord) last() *core.Snapshot {
	if len(r.snaps) == 0 {
		return nil
	}
	return r.snaps[len(r.snaps)-1]
}

// lr is the learning rates in force (runs.RatesInForce: the config's,
// changed by each rate change recorded).
func (r *runRecord) lr() core.LearningRates {
	return runs.RatesInForce(&r.cfg, r.events, runs.Latest).LearningRates
}

// groupName is group g's name at snapshot s (its number when unnamed).
func groupName(s *core.Snapshot, g int32) string {
	if s != nil && g >= 0 && int(g) < len(s.GroupNames) {
		return s.GroupNames[g]
	}
	return strconv.Itoa(int(g))
}

func fmtDur(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}
