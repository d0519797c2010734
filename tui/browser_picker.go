package tui

import (
	"slices"
	"strconv"
	"strings"

	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/tui/picker"
)

// The runs browser's group-by picker (g): the settings the listed runs
// are grouped by, a picker (tui/picker).

// usualGroupKeys are the settings runs are most often grouped by,
// listed first in the picker when they differ.
var usualGroupKeys = []string{"dataset", "method", "model", "objective", "seed", "sweep"}

// newGroupPicker lists every setting maple table --group-by takes, those
// whose values differ among the listed runs first (with how many values
// they take), current checked; space checks one (in order: the first
// checked groups first), enter groups by the checked ones (none: a row
// per run), esc leaves the grouping as it was.
func newGroupPicker(current []string, listed []*runs.Config) *picker.Model {
	all := report.GroupKeys()
	distinct := map[string]int{}
	for _, k := range all {
		seen := map[string]bool{}
		for _, cfg := range listed {
			if v := report.KeyValues(cfg, []string{k})[0]; v != "" { // "": a baseline's search setting
				seen[v] = true
			}
		}
		distinct[k] = len(seen)
	}
	// Those that differ first (the usual ones, then the rest), then
	// those every listed run shares, each alphabetically.
	rank := func(k string) int {
		switch {
		case distinct[k] > 1 && slices.Contains(usualGroupKeys, k):
			return 0
		case distinct[k] > 1:
			return 1
		}
		return 2
	}
	keys := slices.Clone(all)
	slices.SortStableFunc(keys, func(a, b string) int { return rank(a) - rank(b) })
	items := make([]picker.Item, len(keys))
	for i, k := range keys {
		items[i] = picker.Item{Name: k, Note: "the same for every listed run", Dim: true}
		if n := distinct[k]; n > 1 {
			items[i] = picker.Item{Name: k, Note: strconv.Itoa(n) + " values among the listed runs"}
		}
	}
	p := picker.New(items, current, picker.DefaultKeyMap("group"), styles)
	p.NameWidth = 18
	p.Head = func(checked []string) []string {
		head := []string{styles.Title.Render("group the listed runs by") + "  (as maple table --group-by)"}
		if len(checked) > 0 {
			return append(head, "grouping by: "+strings.Join(checked, ", "))
		}
		return append(head, "grouping by: nothing (a row per run)")
	}
	return p
}
