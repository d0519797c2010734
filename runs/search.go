package runs

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/maple-ood/maple/record"
)

// FindSearch returns the id of a finished run in runsDir whose search c
// can take instead of searching again (TakeSearch), "" when there is
// none: the same search hash, finished (done, every outer iteration
// checkpointed), made on build from start to end (the matrix backend and
// thread counts the float32 rounding depends on: a run resumed on
// another lends nothing), and never steered (no learning-rate change: its
// search is the one its settings describe). Of several, the oldest. As a
// resumed run does, the taker trusts the configuration hash across
// maple's versions to name one computation (TestPinnedWeights pins the
// arithmetic); its run.json names the lender, whose run.json names the
// commit that searched.
func (s Store) FindSearch(c Config, build *Build) (string, error) {
	want := c.SearchHash()
	if want == "" || build == nil {
		return "", nil
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		if os.IsNotExist(err) {
			return "", nil
		}
		return "", err
	}
	for _, e := range ents { // ReadDir sorts by name: ids are oldest first
		if !e.IsDir() || e.Name() == c.ID {
			continue
		}
		dir := s.RunDir(e.Name())
		cfg, err := ReadConfig(dir)
		if err != nil || cfg.SearchHash() != want || cfg.Build == nil || *cfg.Build != *build {
			continue
		}
		if ok, _ := searchFinished(dir, cfg); ok {
			return e.Name(), nil
		}
	}
	return "", nil
}

// searchFinished tells whether the run in dir finished its search as its
// settings describe it, with the last iteration checkpointed.
func searchFinished(dir string, cfg *Config) (bool, error) {
	sum, err := ReadSummary(dir)
	if err != nil || sum == nil || !sum.Done || sum.Status != record.StatusDone || sum.Iter != cfg.Settings.OuterIters {
		return false, err
	}
	events, err := ReadEvents(dir)
	if err != nil {
		return false, err
	}
	for _, e := range events {
		if e.Kind == record.EventSetLR || e.Kind == record.EventWarning && IsBuildChange(e.Error) {
			return false, nil
		}
	}
	st, err := finalState(dir, cfg)
	return st != nil, err
}

// finalState returns the checkpointed state of the run in dir when it is
// its search's last iteration, nil otherwise.
func finalState(dir string, cfg *Config) (*record.State, error) {
	st, err := ReadCheckpoint(dir, func(string) {})
	if err != nil || st == nil || st.Iter != cfg.Settings.OuterIters {
		return nil, err
	}
	return st, nil
}

// TakeSearch gives run r of s, which has not started, the finished search of
// run from (FindSearch): its per-iteration records, then its last
// checkpoint (the state FindSearch validated, written last: a run
// without it has taken nothing and searches). Run r then resumes at the
// end of that search and trains only its own final model: the same
// figures, bit for bit, as searching again.
func (s Store) TakeSearch(r *Run, from string) error {
	src := s.RunDir(from)
	fail := func(err error) error { return fmt.Errorf("cannot take the search of run %s: %w", from, err) }
	cfg, err := ReadConfig(src)
	if err != nil {
		return fail(err)
	}
	st, err := finalState(src, cfg)
	if err == nil && st == nil {
		err = fmt.Errorf("its checkpoint is not of its last iteration")
	}
	if err != nil {
		return fail(err)
	}
	b, err := os.ReadFile(filepath.Join(src, MetricsFile))
	if err != nil {
		return fail(err)
	}
	if err := writeFileAtomic(r.Path(MetricsFile), b); err != nil {
		return fail(err)
	}
	if err := r.WriteCheckpoint(st); err != nil {
		return fail(err)
	}
	return nil
}
