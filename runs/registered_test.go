package runs

// The records name methods and objectives that register themselves from
// the packages above the store (record.RegisterSearcher,
// record.RegisterObjective): the store's tests link them, as the maple
// binary does.
import (
	_ "github.com/maple-ood/maple/baselines"
	_ "github.com/maple-ood/maple/core"
)
