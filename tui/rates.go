package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
)

// ratesForm is the dashboard's learning-rate form: the weight, keep and
// inner rates, each a text input, applied together.
type ratesForm struct {
	inputs [3]textinput.Model
	field  int
	keys   formKeys
}

func newRatesForm() ratesForm {
	f := ratesForm{keys: newFormKeys("apply")}
	for i, label := range []string{"weight lr ", "keep lr   ", "inner lr  "} {
		ti := textinput.New()
		ti.Prompt = label
		ti.CharLimit = 24
		ti.SetWidth(14)
		f.inputs[i] = ti
	}
	return f
}

// open fills the form with the rates in force and focuses its first field.
func (f *ratesForm) open(lr core.LearningRates) tea.Cmd {
	for i, v := range []float64{lr.Weight, lr.Keep, lr.Inner} {
		f.inputs[i].SetValue(strconv.FormatFloat(v, 'g', -1, 64))
	}
	f.field = 0
	return f.focus()
}

func (f *ratesForm) focus() tea.Cmd {
	for i := range f.inputs {
		f.inputs[i].Blur()
	}
	return f.inputs[f.field].Focus()
}

// update takes a key. done says the form closed: with the rates to apply
// (checked), or nil when cancelled. note is what to tell the person ("":
// nothing new).
func (f *ratesForm) update(k tea.KeyPressMsg) (lr *core.LearningRates, done bool, note string, cmd tea.Cmd) {
	switch {
	case key.Matches(k, f.keys.Cancel):
		return nil, true, "learning rates unchanged", nil
	case key.Matches(k, f.keys.Next):
		f.field = (f.field + 1) % len(f.inputs)
		return nil, false, "", f.focus()
	case key.Matches(k, f.keys.Prev):
		f.field = (f.field + len(f.inputs) - 1) % len(f.inputs)
		return nil, false, "", f.focus()
	case key.Matches(k, f.keys.Apply):
		var v [3]float64
		for i := range f.inputs {
			x, err := strconv.ParseFloat(strings.TrimSpace(f.inputs[i].Value()), 64)
			if err != nil {
				f.field = i
				return nil, false, fmt.Sprintf("%q is not a number; nothing changed", f.inputs[i].Value()), f.focus()
			}
			v[i] = x
		}
		rates := core.LearningRates{Weight: v[0], Keep: v[1], Inner: v[2]}
		if err := rates.Check(); err != nil {
			return nil, false, config.FlagError(err).Error() + "; nothing changed", nil
		}
		return &rates, true, "new learning rates apply at the next outer iteration (after a checkpoint)", nil
	}
	var c tea.Cmd
	f.inputs[f.field], c = f.inputs[f.field].Update(k)
	return nil, false, "", c
}

func (f *ratesForm) view(w, h int) string {
	var b strings.Builder
	b.WriteString(styles.Title.Render("learning rates") + "  (applied at the next outer iteration, after a checkpoint)\n\n")
	for i := range f.inputs {
		b.WriteString(f.inputs[i].View() + "\n")
	}
	return styles.Pane.Width(w).Height(h).Render(b.String())
}
