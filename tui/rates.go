package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/tui/form"
)

// ratesForm is the dashboard's learning-rate form: the weight, keep and
// inner rates, each a field of a form (tui/form), applied together.
type ratesForm struct {
	form.Model
}

func newRatesForm() ratesForm {
	f := ratesForm{form.New(form.DefaultKeyMap("apply"), "weight lr ", "keep lr   ", "inner lr  ")}
	for i := range f.Inputs {
		f.Inputs[i].CharLimit = 24
	}
	f.SetWidth(14)
	return f
}

// open fills the form with the rates in force and focuses its first field.
func (f *ratesForm) open(lr core.LearningRates) tea.Cmd {
	for i, v := range []float64{lr.Weight, lr.Keep, lr.Inner} {
		f.SetValue(i, strconv.FormatFloat(v, 'g', -1, 64))
	}
	return f.Focus(0)
}

// update takes a key. done says the form closed: with the rates to apply
// (checked), or nil when cancelled. note is what to tell the person ("":
// nothing new).
func (f *ratesForm) update(k tea.KeyPressMsg) (lr *core.LearningRates, done bool, note string, cmd tea.Cmd) {
	act, cmd := f.Update(k)
	switch act {
	case form.Cancel:
		return nil, true, "learning rates unchanged", nil
	case form.Apply:
		var v [3]float64
		for i := range f.Inputs {
			x, err := strconv.ParseFloat(strings.TrimSpace(f.Value(i)), 64)
			if err != nil {
				return nil, false, fmt.Sprintf("%q is not a number; nothing changed", f.Value(i)), f.Focus(i)
			}
			v[i] = x
		}
		rates := core.LearningRates{Weight: v[0], Keep: v[1], Inner: v[2]}
		if err := rates.Check(); err != nil {
			return nil, false, config.FlagError(err).Error() + "; nothing changed", nil
		}
		return &rates, true, "new learning rates apply at the next outer iteration (after a checkpoint)", nil
	}
	return nil, false, "", cmd
}

func (f *ratesForm) view(w, h int) string {
	var b strings.Builder
	b.WriteString(styles.Title.Render("learning rates") + "  (applied at the next outer iteration, after a checkpoint)\n\n")
	for i := range f.Inputs {
		b.WriteString(f.View(i) + "\n")
	}
	return styles.Pane.Width(w).Height(h).Render(b.String())
}
