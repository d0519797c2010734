package sweeps

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/setting"
)

// Search is a random search over each method's settings, in DomainBed's
// style: Trials draws per method from the distributions its registry
// declares (baselines.SearchSpace), each run
// with every seed of the grid.
type Search struct {
	Trials int    // draws per method; 0: a grid, no search
	Seed   uint64 // the draws' seed: a rerun draws the same values
}

// Space returns the distributions of a grid method ("erm", "maple:rex").
func Space(method string) []setting.Param {
	m, _, _ := strings.Cut(method, ":") // maple:OBJECTIVE
	return baselines.SearchSpace(m)
}

// Draw returns trial t's values (1-based) of the method's settings, by
// flag, leaving out the flags in fixed (given on the command line). A
// trial's draws depend only on the seed, the method and t.
func (s Search) Draw(method string, t int, fixed map[string]bool) (map[string]string, error) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", method, t)
	r := rand.New(rand.NewPCG(s.Seed, h.Sum64()))
	out := map[string]string{}
	for _, p := range Space(method) {
		v := p.Draw(r) // drawn even when fixed, so that fixing one flag leaves the others' draws
		st, ok := config.SettingOf(p.Field)
		if !ok {
			return nil, fmt.Errorf("search space of %s: %s is not a setting of the table", method, p.Field)
		}
		flag := st.Flag
		if !fixed[flag] {
			out[flag] = v
		}
	}
	return out, nil
}

// Trial is the trial number of a cell of a random search (0 in a grid).
func Trial(label string) int { return runs.TrialOf(label) }

// halvingRungs are the fractions of a search's outer iterations at
// which successive halving compares the trials.
var halvingRungs = []float64{0.25, 0.5}

// runHalving runs the sweep by successive halving (--early-stop): the
// searches of a random search run to a quarter of their outer
// iterations, the better half of each method's trials (by their mean over
// seeds of the best validation worst-group accuracy so far) go on to
// half, the better half of those to the end; the others are stopped,
// checkpointed and tagged early-stopped (maple resume ID continues one).
// Baselines, which have no outer iterations, run to the end. A rerun
// repeats the same decisions from the runs' records.
func (s *Sweep) runHalving(ctx context.Context, logf func(string, ...any)) []CellResult {
	var results []CellResult
	brackets := map[string][]int{} // method's cells by trial, per dataset|size|model|method
	var order []string
	for i, c := range s.Cells {
		if !c.Config.Searches() || Trial(c.Label) == 0 {
			results = append(results, s.runCell(ctx, c, logf, 0))
			continue
		}
		p := strings.Split(c.Label, "|")
		method, _, _ := strings.Cut(p[3], " trial ")
		key := strings.Join([]string{p[0], p[1], p[2], method}, "|")
		if _, ok := brackets[key]; !ok {
			order = append(order, key)
		}
		brackets[key] = append(brackets[key], i)
	}
	for _, key := range order {
		alive := brackets[key]
		total := s.Cells[alive[0]].Config.Settings.OuterIters
		for _, frac := range halvingRungs {
			rung := max(1, int(math.Round(frac*float64(total))))
			if ctx.Err() != nil {
				return results
			}
			for _, i := range alive {
				r := s.runCell(ctx, s.Cells[i], logf, rung)
				if r.Err != nil {
					results = append(results, r) // a failure on the way is reported, not dropped
				}
				if diskStep != nil {
					diskStep(fmt.Sprintf("%s at iteration %d", LabelText(s.Cells[i].Label), rung), r.RunID)
				}
			}
			if ctx.Err() != nil {
				return results
			}
			alive = s.halve(alive, rung, logf)
		}
		for _, i := range alive {
			results = append(results, s.runCell(ctx, s.Cells[i], logf, 0))
		}
	}
	return results
}

// halve keeps the better half (rounded up) of the trials among cells, by
// their mean over seeds of the best validation worst-group accuracy up
// to iteration rung, and tags the others' runs early-stopped.
func (s *Sweep) halve(cells []int, rung int, logf func(string, ...any)) []int {
	byTrial := map[int][]int{}
	var trials []int
	for _, i := range cells {
		t := Trial(s.Cells[i].Label)
		if _, ok := byTrial[t]; !ok {
			trials = append(trials, t)
		}
		byTrial[t] = append(byTrial[t], i)
	}
	score := map[int]float64{}
	for _, t := range trials {
		var sum float64
		for _, i := range byTrial[t] {
			sum += s.bestSoFar(s.Cells[i], rung)
		}
		score[t] = sum / float64(len(byTrial[t]))
	}
	sort.SliceStable(trials, func(a, b int) bool { return score[trials[a]] > score[trials[b]] })
	keep := (len(trials) + 1) / 2
	var out []int
	for k, t := range trials {
		if k < keep {
			out = append(out, byTrial[t]...)
			continue
		}
		for _, i := range byTrial[t] {
			id, _ := FindCell(s.Dir, s.Name, s.Cells[i].Config.Hash(false))
			if id == "" {
				continue
			}
			if cfg, err := runs.ReadConfig(s.store().RunDir(id)); err == nil && slices.Contains(cfg.Tags, EarlyStoppedTag) {
				continue // decided by an earlier run of the sweep
			}
			runs.Relabel(s.store().RunDir(id), nil, nil, []string{EarlyStoppedTag}, nil)
			if diskStep != nil {
				diskStep(LabelText(s.Cells[i].Label)+" tagged early-stopped", "")
			}
			logf("%-40s early-stopped at iteration %d (val worst-group %.4f, in the worse half of its trials); maple resume %s continues it", LabelText(s.Cells[i].Label), rung, score[t], id)
		}
	}
	slices.Sort(out)
	return out
}

// diskStep, when set (by tests), is called between the steps of
// successive halving, where a kill leaves the runs directory as it is:
// after a cell has run to a rung (with its run's id), after a cell is
// tagged early-stopped (with "").
var diskStep func(what, runID string)

// EarlyStoppedTag marks the runs successive halving stopped.
const EarlyStoppedTag = "early-stopped"

// bestSoFar is a cell's best validation worst-group accuracy over its
// iterations up to rung (-1 when it has none).
func (s *Sweep) bestSoFar(c Cell, rung int) float64 {
	best := -1.0
	id, _ := FindCell(s.Dir, s.Name, c.Config.Hash(false))
	if id == "" {
		return best
	}
	snaps, _ := runs.ReadMetrics(s.store().RunDir(id))
	for _, sn := range snaps {
		if sn.Iter <= rung && sn.ValWorst > best {
			best = sn.ValWorst
		}
	}
	return best
}

// stopAt returns session options that stop a search once it has
// recorded iteration rung (0: run to the end), before it starts the next
// one, and at once when it resumes at rung (killed after its checkpoint
// there, before its summary), through the engine's own Stop, so that it
// is checkpointed and resumes bit for bit.
func stopAt(opt session.Options, rung int) session.Options {
	if rung <= 0 {
		return opt
	}
	opt.StopAt = rung
	opt.Watched = func() bool { return false } // a NaN still fails the cell
	return opt
}
