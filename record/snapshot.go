package record

// Snapshot is what the engine reports after each outer iteration (one
// line of metrics.jsonl; see docs/ARCHITECTURE.md). It owns all its
// slices.
type Snapshot struct {
	Iter      int     `json:"iter"`  // outer iterations completed (1-based)
	Total     int     `json:"total"` // T
	OuterRisk float64 `json:"outer_risk"`
	InnerLoss float64 `json:"inner_loss"` // weighted loss at the last inner step
	ValAcc    float64 `json:"val_acc"`
	ValWorst  float64 `json:"val_worst_group_acc"`
	// ValGroups is the inner model's validation accuracy per group (in
	// GroupNames' order; -1 for a group the validation split lacks).
	ValGroups  []float64 `json:"val_group_acc"`
	TestAcc    float64   `json:"test_acc"` // test figures are for display, never for selection
	TestWorst  float64   `json:"test_worst_group_acc"`
	GroupNames []string  `json:"group_names"`
	// GroupFrac[g] = sum_{i in g} u_i / sum_i u_i over training groups.
	GroupFrac []float64 `json:"group_frac"`
	// Hist[g][b] counts training samples of group g whose weight u_i
	// falls in bin b of HistEdges (len(HistEdges) = bins + 1).
	Hist      [][]int   `json:"hist"`
	HistEdges []float64 `json:"hist_edges"`
	// WeightHist and KeepHist count all training samples by their weight
	// w_i and keep probability s_i (TensorBoard's histograms); nil in
	// records written before they existed.
	WeightHist *Histogram `json:"weight_hist,omitempty"`
	KeepHist   *Histogram `json:"keep_hist,omitempty"`
	// Top lists the training samples with the largest weights u_i.
	Top []TopSample `json:"top"`
	// Dropped lists the samples least likely kept: the lowest keep
	// probabilities s_i, ties broken by the lowest weight w_i.
	Dropped   []TopSample   `json:"dropped,omitempty"`
	KeepFrac  float64       `json:"keep_frac"` // fraction of samples with m_i = 1
	KeepSize  float64       `json:"keep_size"` // K_t
	Temp      float64       `json:"temperature"`
	HyperNorm float64       `json:"hypergrad_norm"` // norm of dR/dw before clipping
	KeepNorm  float64       `json:"keepgrad_norm"`  // norm of dR/ds before clipping
	Seconds   Timing        `json:"seconds"`
	LR        LearningRates `json:"lr"`
	Status    Status        `json:"status"`
	// IterEval is the evaluation model trained on this iterate's weights
	// (--eval-each-iter); nil otherwise.
	IterEval *IterEval `json:"iter_eval,omitempty"`
	// Selected is the iterate the final weighted ERM would train on if the
	// search ended now (the validation-selected one, or this one with
	// --select-iterate final); 0 before any.
	Selected int     `json:"selected_iter"`
	Err      string  `json:"error,omitempty"`
	Elapsed  float64 `json:"elapsed"` // seconds since Run started
}

// IterEval is the weighted ERM of the evaluation model on one iterate's
// weights: its validation-selected figures and, when asked for, the
// reference protocol's (test-selected) figure.
type IterEval struct {
	ValAcc    float64          `json:"val_acc"`
	ValWorst  float64          `json:"val_worst_group_acc"`
	TestAcc   float64          `json:"test_acc"`
	TestWorst float64          `json:"test_worst_group_acc"`
	Step      int              `json:"selected_step"`
	Reference *ReferenceFigure `json:"reference_protocol,omitempty"`
	Last      *LastStep        `json:"last_step,omitempty"`
}

// TopSample is one heavily weighted training sample.
type TopSample struct {
	Index  int     `json:"index"` // row in the training split
	ID     int64   `json:"id"`    // the dataset's sample id
	Label  int32   `json:"label"`
	Group  int32   `json:"group"`
	Weight float64 `json:"weight"`         // u_i
	Keep   float64 `json:"keep,omitempty"` // s_i, the keep probability
	W      float64 `json:"w,omitempty"`    // w_i, the weight before the mask
}

// Timing is the time spent in the three phases of an outer iteration.
type Timing struct {
	Inner     float64 `json:"inner"`
	OuterGrad float64 `json:"outer_grad"`
	Hyper     float64 `json:"hypergrad"`
}

// EventKind names a change made from outside the engine.
type EventKind string

// The events an engine reports.
const (
	EventPause      EventKind = "pause"
	EventResume     EventKind = "resume"
	EventSetLR      EventKind = "set_lr"
	EventCheckpoint EventKind = "checkpoint"
	EventStop       EventKind = "stop"
	EventError      EventKind = "error"
	// EventEvaluate marks the end of the search: the final weighted ERM
	// starts (reported by the run, not the engine).
	EventEvaluate EventKind = "evaluate"
	// EventExport records that someone exported the weights of the
	// checkpoint at Export (from the dashboard, say).
	EventExport EventKind = "export"
	// EventWarning tells of records set aside or skipped on disk (a
	// damaged metrics line, a checkpoint that failed its checksum), in
	// Error (reported by the run, not the engine).
	EventWarning EventKind = "warning"
)

// Event is one change, stamped with the outer iteration it applies before.
type Event struct {
	Kind  EventKind      `json:"kind"`
	Iter  int            `json:"iter"`
	LR    *LearningRates `json:"lr,omitempty"`
	Error string         `json:"error,omitempty"`
	// Export is the checkpoint iteration an export event wrote out.
	Export int `json:"export_iter,omitempty"`
	// Restart marks a resume event written by a new process that took
	// the search up from its checkpoint (maple resume, a rerun sweep),
	// not by a paused search's unpausing; runs recorded before the field
	// existed leave it false on both.
	Restart bool `json:"restart,omitempty"`
}

// Recorder receives what the engine reports, synchronously, from the
// engine's goroutine. An error pauses the search (nothing is lost: the
// engine retries the failed report when resumed).
type Recorder interface {
	Snapshot(s *Snapshot) error
	Event(e Event) error
	// Checkpoint is asked to persist st; st is the engine's own copy.
	Checkpoint(st *State) error
}

// State is everything needed to continue a search bit for bit.
type State struct {
	Iter   int           `json:"iter"` // outer iterations completed
	W, S   []float64     `json:"-"`
	WM, WV []float64     `json:"-"` // Adam moments of w
	SM, SV []float64     `json:"-"` // Adam moments of s
	AdamT  int           `json:"adam_t"`
	RNG    []byte        `json:"-"` // the engine generator's state
	LR     LearningRates `json:"lr"`
	Theta  []float32     `json:"-"` // warm inner start only
	// The validation-selected iterate so far: its iteration (1-based; 0
	// for none), its score, and its w, s and drawn mask.
	BestIter  int       `json:"best_iter"`
	BestScore float64   `json:"best_score"`
	BestW     []float64 `json:"-"`
	BestS     []float64 `json:"-"`
	BestM     []bool    `json:"-"`
}

// Clone returns a deep copy.
func (st *State) Clone() *State {
	c := *st
	for _, p := range []*[]float64{&c.W, &c.S, &c.WM, &c.WV, &c.SM, &c.SV} {
		*p = append([]float64(nil), (*p)...)
	}
	c.RNG = append([]byte(nil), st.RNG...)
	c.Theta = append([]float32(nil), st.Theta...)
	c.BestW = append([]float64(nil), st.BestW...)
	c.BestS = append([]float64(nil), st.BestS...)
	c.BestM = append([]bool(nil), st.BestM...)
	return &c
}

// Histogram counts values in bins: Counts[b] those in [Edges[b],
// Edges[b+1]), the last bin closed; Min, Max, Sum and SumSq are of the
// values themselves.
type Histogram struct {
	Edges  []float64 `json:"edges"`
	Counts []int     `json:"counts"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Sum    float64   `json:"sum"`
	SumSq  float64   `json:"sum_sq"`
}
