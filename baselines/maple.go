package baselines

import (
	"slices"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/setting"
)

// maple is the MAPLE search as a Method: a Searcher, which package
// session runs through core's Engine, not a Trainer.
type maple struct{}

func (maple) Name() string { return core.MethodMaple }

// Label is maple/OBJECTIVE.
func (m maple) Label(objective string) string { return m.Name() + "/" + objective }

func (maple) ObjectiveSupervision(objective string) core.Supervision {
	return core.ObjectiveSupervision(objective)
}

// SearchSpace is MapleSpace: the search's learning rates.
func (maple) SearchSpace() []setting.Param { return slices.Clone(MapleSpace) }
