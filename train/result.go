package train

import "github.com/maple-ood/maple/record"

// The criteria a training selects its checkpoint by (Result.Criterion).
const (
	CriterionWorst = record.CriterionWorst // where the validation split has groups
	CriterionAcc   = record.CriterionAcc   // where it has none
)

// The records of a training, kept in package record: the Result of one
// trained model, selected on validation (summary.json), with its
// figures.
type (
	Result          = record.Result
	Tuned           = record.Tuned
	Candidate       = record.Candidate
	CheckPoint      = record.CheckPoint
	ReferenceFigure = record.ReferenceFigure
	LastStep        = record.LastStep
	OracleFigures   = record.OracleFigures
	Choice          = record.Choice
	ChoiceFigures   = record.ChoiceFigures
)
