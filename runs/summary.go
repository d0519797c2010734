package runs

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/maple-ood/maple/record"
)

// Summary is summary.json.
type Summary struct {
	Done   bool          `json:"done"`   // the search and its evaluation finished
	Status record.Status `json:"status"` // done, stopped or failed (interrupted: never written)
	Error  string        `json:"error,omitempty"`
	// Rates are the learning rates in force when a search failed.
	Rates record.LearningRates `json:"rates,omitzero"`
	Iter  int                  `json:"iter"`
	Total int                  `json:"total"`
	// SelectedIter is the search iterate whose weights the evaluation
	// trained on (validation-selected); 0: the weights after the last one.
	SelectedIter int            `json:"selected_iter"`
	Result       *record.Result `json:"result,omitempty"`
	// Reference is the reference protocol's figure over the search
	// (--eval-each-iter with a training-accuracy threshold): the highest
	// test accuracy over iterations and steps, "oracle selection
	// (reference protocol)", never the result.
	Reference *record.ReferenceFigure `json:"reference_protocol,omitempty"`
	Finished  time.Time               `json:"finished"`
	Seconds   float64                 `json:"seconds"`
	// BestValWorst is the best validation worst-group accuracy of the
	// search model over the outer iterations (NaN-free; -1 if none).
	BestValWorst float64 `json:"best_val_worst_group_acc"`
	// CheckpointErr is why the final checkpoint of an unfinished run could
	// not be written (then the run resumes from an earlier one).
	CheckpointErr error `json:"-"`
}

// ReadSummary reads summary.json; nil, nil when there is none.
func ReadSummary(dir string) (*Summary, error) {
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, &DamagedSummaryError{Path: filepath.Join(dir, SummaryFile), Err: err}
	}
	return &s, nil
}

// DamagedSummaryError is a summary.json that cannot be read. Its
// message names the file and the command that writes it again.
type DamagedSummaryError struct {
	Path string // the file
	Err  error  // why it cannot be read
}

func (e *DamagedSummaryError) Error() string {
	dir := filepath.Dir(e.Path)
	return fmt.Sprintf("%s is damaged (%v); maple resume %s --runs-dir %s writes it again (a finished search trains only its final model again, from its checkpoint; a stopped one goes on; a baseline trains again from the start)",
		e.Path, e.Err, filepath.Base(dir), filepath.Dir(dir))
}

func (e *DamagedSummaryError) Unwrap() error { return e.Err }

// Info is one line of `maple ls`.
type Info struct {
	ID        string        `json:"id"`
	Dataset   string        `json:"dataset"`
	Method    string        `json:"method"` // method, or maple/objective
	Status    record.Status `json:"status"`
	Iter      int           `json:"iter"`
	Total     int           `json:"total"`
	BestVal   float64       `json:"best_val_worst_group_acc"` // over outer iterations; -1 if none
	TestWorst float64       `json:"test_worst_group_acc"`     // at the validation-selected checkpoint; -1 until evaluated
	TestAcc   float64       `json:"test_acc"`                 // likewise
	Started   time.Time     `json:"started"`
	Problem   string        `json:"problem,omitempty"` // a damaged file, when there is one
	Seed      uint64        `json:"seed"`
	Sweep     string        `json:"sweep,omitempty"` // the sweep this run is a cell of
	Model     string        `json:"model"`           // the search model (maple) or the baseline's model
	EvalModel string        `json:"eval_model"`      // the model of the final weighted ERM
	Evals     []EvalInfo    `json:"evals,omitempty"` // maple eval results stored beside the run
	Name      string        `json:"name,omitempty"`  // --name
	Tags      []string      `json:"tags,omitempty"`  // --tag
	Note      string        `json:"note,omitempty"`  // --note
	Elapsed   float64       `json:"elapsed"`         // seconds of searching so far (pauses left out); a baseline's of training
	// Step is where a running baseline's training stands (its log's last
	// progress line); nil for a search and for a baseline not running.
	Step *TrainStep `json:"training_step,omitempty"`
}

// IterText is the run's progress as the listings print it: a search's
// "iteration/iterations", a running baseline's step (TrainStep.String),
// else "-".
func (in Info) IterText() string {
	switch {
	case in.Total > 0:
		return fmt.Sprintf("%d/%d", in.Iter, in.Total)
	case in.Step != nil:
		return in.Step.String()
	}
	return "-"
}

// SweepLabel is the run's sweep as the listings print it ("-" for none).
func (in Info) SweepLabel() string {
	if in.Sweep == "" {
		return "-"
	}
	return in.Sweep
}

// StartedText is when the run started, as listings print it.
func (in Info) StartedText() string {
	if in.Started.IsZero() {
		return "-"
	}
	return in.Started.Format("01-02 15:04") // in the zone it was recorded in
}

// DurationText is how long the run has searched (pauses left out), or a
// baseline trained, as listings print it.
func (in Info) DurationText() string {
	if in.Elapsed <= 0 {
		return "-"
	}
	return time.Duration(in.Elapsed * float64(time.Second)).Round(time.Second).String()
}

// NameText and TagsText are the run's name and tags as listings print
// them ("-" for none).
func (in Info) NameText() string {
	if in.Name == "" {
		return "-"
	}
	return in.Name
}

func (in Info) TagsText() string {
	if len(in.Tags) == 0 {
		return "-"
	}
	return strings.Join(in.Tags, ",")
}

// EvalInfo is one maple eval result of a run: the learned weights under
// another model, at its validation-selected checkpoint.
type EvalInfo struct {
	Model     string  `json:"model"`
	TestWorst float64 `json:"test_worst_group_acc"`
	TestAcc   float64 `json:"test_acc"`
}

// MarshalJSON writes the figures not known yet as null, not -1.
func (in Info) MarshalJSON() ([]byte, error) {
	type plain Info
	known := func(v float64) *float64 {
		if v < 0 {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		plain
		BestVal   *float64 `json:"best_val_worst_group_acc"`
		TestWorst *float64 `json:"test_worst_group_acc"`
		TestAcc   *float64 `json:"test_acc"`
	}{plain(in), known(in.BestVal), known(in.TestWorst), known(in.TestAcc)})
}

// Stat describes the run in dir.
func Stat(dir string) Info {
	in := Info{ID: filepath.Base(dir), BestVal: -1, TestWorst: -1, TestAcc: -1, Dataset: "?", Method: "?"}
	var problems []string
	cfg, err := ReadConfig(dir)
	if err != nil {
		problems = append(problems, err.Error())
	} else {
		in.Dataset, in.Method, in.Started, in.Total = cfg.Dataset.Name, cfg.Method, cfg.Started, cfg.Settings.OuterIters
		in.Seed, in.Sweep, in.Model, in.EvalModel = cfg.Settings.Seed, cfg.Sweep, cfg.Settings.Model, cfg.Eval.Model
		in.Name, in.Tags, in.Note = cfg.Name, cfg.Tags, cfg.Note
		if !cfg.Searches() {
			in.Model = cfg.Eval.Model
		}
		if cfg.Searches() {
			in.Method = "maple/" + cfg.Settings.Objective
		} else {
			in.Total = 0
		}
	}
	snaps, err := ReadMetrics(dir)
	if err != nil {
		problems = append(problems, err.Error())
	}
	for _, s := range snaps {
		in.Iter, in.Elapsed = s.Iter, s.Elapsed
		in.BestVal = math.Max(in.BestVal, s.ValWorst)
	}
	sum, err := ReadSummary(dir)
	if err != nil {
		problems = append(problems, err.Error())
	}
	switch {
	case err != nil && !Held(dir):
		in.Status = record.StatusUnknown // its summary is damaged: done, stopped or failed, no one can tell
	case sum != nil:
		in.Status = sum.Status
		if sum.Result != nil {
			in.TestWorst, in.TestAcc = sum.Result.TestWorst, sum.Result.TestAcc
		}
		if len(snaps) == 0 && cfg != nil && !cfg.Searches() {
			in.Elapsed = sum.Seconds // a baseline's training: it records no iterations
		}
	case Held(dir):
		in.Status = record.StatusRunning
		if cfg != nil && !cfg.Searches() {
			if st, ok := ParseProgress(LastProgress(dir)); ok {
				in.Step = &st
			}
		}
		if ev, _ := ReadEvents(dir); len(ev) > 0 {
			switch ev[len(ev)-1].Kind {
			case record.EventPause, record.EventError:
				in.Status = record.StatusPaused
			case record.EventEvaluate:
				in.Status = record.StatusEvaluating
			}
		}
	default:
		in.Status = record.StatusInterrupted
	}
	if _, err := ReadCheckpoint(dir, func(m string) { problems = append(problems, m+" (resume uses the previous one)") }); err != nil {
		problems = append(problems, err.Error())
	}
	if lines, _ := readLines(filepath.Join(dir, DroppedMetrics)); len(lines) > 0 {
		problems = append(problems, fmt.Sprintf("%d records set aside in %s", len(lines), DroppedMetrics))
	}
	evals, errs := ReadEvals(dir)
	for _, e := range evals {
		in.Evals = append(in.Evals, EvalInfo{Model: e.Result.Model, TestWorst: e.Result.TestWorst, TestAcc: e.Result.TestAcc})
	}
	for _, err := range errs {
		problems = append(problems, err.Error())
	}
	in.Problem = strings.Join(problems, "; ")
	return in
}

// List describes every run under runsDir, oldest first.
func (s Store) List() ([]Info, error) {
	ents, err := os.ReadDir(s.dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	var out []Info
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := s.RunDir(e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			continue // a run being created, or the sweeps' claims
		}
		_, cerr := os.Stat(filepath.Join(dir, ConfigFile))
		_, lerr := os.Stat(filepath.Join(dir, LockFile))
		if cerr != nil && lerr != nil {
			continue // not a run directory
		}
		out = append(out, Stat(dir))
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// SearchTime sums the per-phase seconds of a search's outer iterations
// (the sparsity experiment compares the inner-loop total).
func SearchTime(snaps []*record.Snapshot) record.Timing {
	var t record.Timing
	for _, s := range snaps {
		t.Inner += s.Seconds.Inner
		t.OuterGrad += s.Seconds.OuterGrad
		t.Hyper += s.Seconds.Hyper
	}
	return t
}
