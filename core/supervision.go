package core

// Supervision names the labels beyond the class label y that a method's
// training (or a search's outer objective) reads. Model selection is a
// separate matter: every method is selected on the validation split's
// worst-group accuracy where it has groups (train.Result.Criterion).
type Supervision string

// The kinds of supervision, from none to the most.
const (
	SupervisionNone   Supervision = "none"         // y alone
	SupervisionEnvs   Supervision = "environments" // the training environments (IRMv1, REx)
	SupervisionGroups Supervision = "groups"       // group labels (attribute x class)
	// SupervisionValGroups: the group labels of the validation split
	// alone, which the method trains on (DFR); none of the training
	// split's.
	SupervisionValGroups Supervision = "validation groups"
	// SupervisionOracle: data without the spurious signal, which no real
	// dataset offers; a reference, not a method.
	SupervisionOracle Supervision = "oracle data"
)

// ObjectiveSupervision returns what the outer objective called name
// reads beyond y (package baselines says it of the methods).
func ObjectiveSupervision(name string) Supervision {
	o, _ := lookupObjective(name)
	if s, ok := o.(Supervised); ok {
		return s.Supervision()
	}
	return SupervisionNone
}

// UsesGroupLabels tells whether a supervision reads group labels (of
// the training or the validation split, or more: the oracle's data).
func (s Supervision) UsesGroupLabels() bool {
	return s == SupervisionGroups || s == SupervisionValGroups || s == SupervisionOracle
}

func (irmv1) Supervision() Supervision      { return SupervisionEnvs }
func (rex) Supervision() Supervision        { return SupervisionEnvs }
func (worstGroup) Supervision() Supervision { return SupervisionGroups }
