package run

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"time"

	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/record"
)

// Config is run.json: everything needed to repeat or resume the run.
type Config struct {
	ID              string              `json:"id"`
	Version         string              `json:"version"`
	Commit          string              `json:"commit,omitempty"` // the VCS revision of the binary
	Started         time.Time           `json:"started"`
	Dataset         loaders.Spec        `json:"dataset"`
	Method          string              `json:"method"` // maple or a baseline
	Settings        record.Settings     `json:"settings"`
	Eval            record.EvalSettings `json:"eval"`
	CheckpointEvery int                 `json:"checkpoint_every"` // outer iterations between checkpoints
	Args            []string            `json:"args,omitempty"`   // the command line that started it
	Sweep           string              `json:"sweep,omitempty"`  // the sweep this run is a cell of
	// Name, Tags and Note are for people (--name, --tag, --note; maple tag
	// edits them later): never part of what the run computes (Hash).
	Name string   `json:"name,omitempty"`
	Tags []string `json:"tags,omitempty"`
	Note string   `json:"note,omitempty"`
	Cell string   `json:"cell,omitempty"` // the cell's key inside the sweep
	// SearchFrom is the run whose finished search this run took instead
	// of searching again (a sweep's cell whose search settings another
	// run shares: runs.FindSearch): never part of what the run computes (Hash).
	SearchFrom string `json:"search_from,omitempty"`
	// Build is the matrix backend the run started on (CurrentBuild):
	// never part of what the run computes (Hash), but its results are
	// bit for bit only on one backend and thread count.
	Build *Build `json:"build,omitempty"`
	// Format is run.json's format (runs.ConfigFormat, written by runs.Store.Create; 0
	// when absent, the oldest): never part of Hash.
	Format int `json:"format,omitempty"`
}

// Build is the matrix backend a process computes with.
type Build struct {
	MatrixProducts string `json:"matrix_products"` // nets.BLAS(): the BLAS, and the float32 products' backend when another
	Threads        int    `json:"threads"`         // the BLAS's threads (nets.Threads)
	GOMAXPROCS     int    `json:"gomaxprocs"`      // the goroutines maple's own parallel loops split over
}

// CurrentBuild is this process's matrix backend.
func CurrentBuild() *Build {
	return &Build{MatrixProducts: nets.BLAS(), Threads: nets.Threads(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
}

// String is the build as people read it.
func (b Build) String() string {
	return fmt.Sprintf("%s, %d threads, GOMAXPROCS %d", b.MatrixProducts, b.Threads, b.GOMAXPROCS)
}

// Searches tells whether the run's method searches (a
// baselines.Searcher: maple, RegisterSearcher): only a search has outer
// iterations, a checkpoint, learning rates that change while it runs and
// an outer objective; a baseline trains once.
func (c Config) Searches() bool {
	_, ok := searcher(c.Method)
	return ok
}

// MethodName is how listings name the run's method: a baseline's name, or
// maple/OBJECTIVE for a search.
func (c Config) MethodName() string {
	if label, ok := searcher(c.Method); ok {
		return label(c.Settings.Objective)
	}
	return c.Method
}

// searcher returns the label of the method called name when it searches.
// It panics when no method searches: baselines, which registers them, is
// not linked, and every search would pass for a baseline.
func searcher(name string) (func(objective string) string, bool) { return record.Searcher(name) }

// Hash identifies what a run computes: a hash of every setting that can
// change its results (dataset spec less its location, method, search and
// evaluation settings, seed). Two runs with one hash are repeats of each
// other; a sweep keys its cells by it. withoutSeed leaves the seed out,
// which groups the seeds of one configuration.
func (c Config) Hash(withoutSeed bool) string {
	d := c.Dataset
	d.DataDir, d.Offline = "", false
	s, e := c.Settings, c.Eval
	if !c.Searches() {
		// A baseline runs no search: only its seed of the search settings
		// matters.
		s = record.Settings{Seed: s.Seed}
		e.AlsoShared = false // only a search's final training is chosen between two
	} else {
		// A search evaluates by plain weighted ERM: the baselines' own
		// settings do not matter.
		def := record.DefaultEval()
		e.Penalty, e.PenaltyAnneal, e.DROStep, e.CVaRAlpha, e.JTTSteps, e.JTTUp = def.Penalty, def.PenaltyAnneal, def.DROStep, def.CVaRAlpha, def.JTTSteps, def.JTTUp
		s = s.Canonical() // one computation, one hash
	}
	if withoutSeed {
		s.Seed, e.Seed = 0, 0
	}
	b, _ := json.Marshal(struct {
		Dataset any
		Method  string
		Search  record.Settings
		Eval    record.EvalSettings
	}{d, c.Method, s, e})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// DefaultConfig returns the config of `maple run --dataset name` with
// every other flag at its default (the search model is the dataset's,
// loaders.DefaultModel: linear on synthetic and on embeddings,
// mlp:390,390 elsewhere; the evaluation model is the search model).
func DefaultConfig(name string) Config {
	c := Config{Dataset: loaders.DefaultSpec(name), Method: "maple", Settings: record.DefaultSettings(), Eval: record.DefaultEval(), CheckpointEvery: 5}
	if m := loaders.DefaultModel(name); m != "" {
		c.Settings.Model = m
	}
	c.Eval.Model, c.Eval.Seed = c.Settings.Model, c.Settings.Seed
	return c
}

// SearchHash identifies what a search computes: a hash of the dataset
// spec (less its location) and the search settings, the seed among them.
// Two maple runs with one search hash search alike, bit for bit on one
// build, whatever their evaluation settings or the name of the preset
// their settings came from (the maple-reference preset with its outer
// objective on validation searches as the defaults do). It is "" for a
// run whose search cannot be shared: a baseline (no search), or a search
// that evaluates every iterate (--eval-each-iter: the evaluation
// settings are part of its records).
func (c Config) SearchHash() string {
	if !c.Searches() || c.Settings.EvalEachIter {
		return ""
	}
	d := c.Dataset
	d.DataDir, d.Offline = "", false
	s := c.Settings // canonical since Resolve or Create (and Upgraded when read)
	s.Recipe = ""   // a preset's name, which the search does not read: its settings are spelt out beside it
	b, _ := json.Marshal(struct {
		Dataset any
		Search  record.Settings
	}{d, s})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}
