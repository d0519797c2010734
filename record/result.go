package record

// The criteria a training selects its checkpoint by (Result.Criterion).
const (
	CriterionWorst = "val worst-group accuracy" // where the validation split has groups
	CriterionAcc   = "val accuracy"             // where it has none
)

// Result is the evaluation of one trained model, selected on validation.
type Result struct {
	Method       string    `json:"method"`
	Dataset      string    `json:"dataset"`
	Model        string    `json:"model"`
	Seed         uint64    `json:"seed"`
	Selection    string    `json:"selection"` // always "validation"
	Criterion    string    `json:"criterion"` // val worst-group accuracy, or val accuracy without groups
	SelectedStep int       `json:"selected_step"`
	ValAcc       float64   `json:"val_acc"`
	ValWorst     float64   `json:"val_worst_group_acc"`
	TestAcc      float64   `json:"test_acc"`
	TestWorst    float64   `json:"test_worst_group_acc"`
	PerGroupTest []float64 `json:"per_group_test_acc"`
	GroupNames   []string  `json:"group_names"`
	// OracleSelection is the checkpoint chosen by test worst-group
	// accuracy: shown for reference only, never as the result.
	OracleSelection OracleFigures `json:"oracle_selection"`
	// Reference is the reference protocol's figure when asked for
	// (EvalSettings.RefTrainAcc): test-selected, an oracle figure.
	Reference *ReferenceFigure `json:"reference_protocol,omitempty"`
	// Last is the last step's figures, kept with the reference protocol.
	Last *LastStep `json:"last_step,omitempty"`
	// Stopped, when not nil, is the step whose gradient was no longer
	// finite (a learning rate too high for the model): training stopped
	// there and the checkpoint was selected among the checks before it.
	Stopped *int `json:"stopped_at_step,omitempty"`
	// Choice, when the final training was chosen between two
	// (EvalSettings.AlsoShared), says which and what validation saw of
	// each.
	Choice *Choice `json:"choice,omitempty"`
	// Tuned, for a method that chooses a setting on validation rather
	// than a step (dfr's C), says what it chose, among what.
	Tuned *Tuned `json:"tuned,omitempty"`
	Done  bool   `json:"done"`

	Theta []float32 `json:"-"` // parameters of the selected checkpoint
	// SampleWeights are the per-sample training weights a method ended
	// with (lff's W), when it learns any; nil otherwise.
	SampleWeights []float64 `json:"-"`
	// KeptWeights is the fraction of the weights a weight-masking method's
	// selected network keeps (sparseirm, mrm).
	KeptWeights *float64 `json:"kept_weight_fraction,omitempty"`
	// Reweighting is what a reweighting method (jtt, upweight, lff,
	// groupdro, cvar) did to the training weights, and whether it changed
	// nothing; nil for other methods and for runs recorded before it.
	Reweighting *Reweighting `json:"reweighting,omitempty"`
	// Curve is every validation check of the training the result was
	// selected from, in step order: what the selection saw (validation)
	// and, beside it, the test figures it did not use.
	Curve []CheckPoint `json:"curve,omitempty"`
}

// Tuned is a setting a method chose on validation (Result.Tuned): each
// candidate's figures, and what they were measured on.
type Tuned struct {
	Name       string      `json:"name"`    // the setting's name ("C")
	Setting    string      `json:"setting"` // what it is, in words
	Chosen     float64     `json:"chosen"`
	Candidates []Candidate `json:"candidates"`
	// Note says what the validation figures are, and what the final
	// model was trained on.
	Note string `json:"note"`
}

// Candidate is one value a method tried for its Tuned setting: the
// validation figures its choice read and, beside them, the test figures
// it did not use.
type Candidate struct {
	Value     float64 `json:"value"`
	ValAcc    float64 `json:"val_acc"`
	ValWorst  float64 `json:"val_worst_group_acc"`
	TestAcc   float64 `json:"test_acc"`
	TestWorst float64 `json:"test_worst_group_acc"`
}

// CheckPoint is one validation check of a training run: the model at
// Step on the validation and test splits.
type CheckPoint struct {
	Step      int     `json:"step"`
	ValAcc    float64 `json:"val_acc"`
	ValWorst  float64 `json:"val_worst_group_acc"`
	TestAcc   float64 `json:"test_acc"`
	TestWorst float64 `json:"test_worst_group_acc"`
}

// ReferenceFigure is the MAPLE code's reported figure: the highest test
// accuracy over the steps (and, for a search, the iterations) whose
// training accuracy exceeds a threshold. It is selected on the test set:
// "oracle selection (reference protocol)", never a result.
type ReferenceFigure struct {
	TestAcc  float64 `json:"test_acc"`
	Step     int     `json:"step"`
	Iter     int     `json:"iter,omitempty"` // the search iterate, for a search
	TrainAcc float64 `json:"train_acc"`      // the step's training accuracy
	MinTrain float64 `json:"min_train_acc"`  // the threshold it had to exceed
}

// LastStep is the last training step's test and training accuracy: no
// selection at all (what the MAPLE code's last retraining step reaches).
type LastStep struct {
	Step     int     `json:"step"`
	TestAcc  float64 `json:"test_acc"`
	TrainAcc float64 `json:"train_acc"`
}

// OracleFigures are test-selected figures, labelled as such.
type OracleFigures struct {
	Step      int     `json:"step"`
	TestAcc   float64 `json:"test_acc"`
	TestWorst float64 `json:"test_worst_group_acc"`
}

// Trained names which training a chosen result came from
// (Choice.Chosen).
const (
	TrainedOwn    = "own"    // the settings' own training
	TrainedShared = "shared" // the shared evaluation (train.SharedTraining)
)

// Choice records a choice between two trainings of the final model.
type Choice struct {
	Chosen string         `json:"chosen"`           // TrainedOwn or TrainedShared
	Own    *ChoiceFigures `json:"own,omitempty"`    // the settings' own training's selected checkpoint; nil when it failed
	Shared *ChoiceFigures `json:"shared,omitempty"` // the shared evaluation's; nil when it failed
	// OwnError and SharedError say why a training that failed was no
	// candidate ("" for one that trained).
	OwnError    string `json:"own_error,omitempty"`
	SharedError string `json:"shared_error,omitempty"`
}

// ChoiceFigures are a training's validation figures at its selected
// checkpoint: what the choice saw.
type ChoiceFigures struct {
	SelectedStep int     `json:"selected_step"`
	ValAcc       float64 `json:"val_acc"`
	ValWorst     float64 `json:"val_worst_group_acc"`
}
