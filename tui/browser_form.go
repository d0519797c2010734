package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/runs"
)

// formFields are the settings the new-run form edits, named by their
// flags (the Form rows of config.Table); every other setting is kept
// from the run the form starts from.
var formFields = func() []config.Setting {
	var out []config.Setting
	for _, st := range config.Table {
		if st.Form {
			out = append(out, st)
		}
	}
	return out
}()

// runForm is the browser's new-run form, a component: one text input
// per form setting, prefilled from a run's config, every other setting
// kept from it.
type runForm struct {
	inputs []textinput.Model
	cfg    runs.Config // the config the form edits
	field  int
	keys   formKeys
	help   help.Model
	note   string // why the last enter was refused
	width  int
}

// formDoneMsg closes the form: with the new run's whole config, checked,
// or nil when cancelled.
type formDoneMsg struct{ cfg *runs.Config }

func newRunForm() *runForm { return &runForm{keys: newFormKeys("start"), help: newHelp()} }

// open fills the form from cfg (the defaults when cfg is empty) and
// focuses its first field.
func (f *runForm) open(cfg runs.Config) tea.Cmd {
	if cfg.Method == "" {
		cfg = runs.DefaultConfig("synthetic")
	}
	f.cfg = cfg
	f.inputs = make([]textinput.Model, len(formFields))
	for i, fl := range formFields {
		ti := textinput.New()
		ti.Prompt = fmt.Sprintf("%-12s ", fl.Flag)
		ti.SetValue(fl.Get(&cfg))
		ti.SetWidth(40)
		f.inputs[i] = ti
	}
	f.field, f.note = 0, ""
	return f.inputs[0].Focus()
}

func done(cfg *runs.Config) tea.Cmd { return func() tea.Msg { return formDoneMsg{cfg} } }

// Update takes a key: tab and shift+tab move between fields, enter
// checks the config and closes the form with it, esc cancels.
func (f *runForm) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, f.keys.Cancel):
		f.note = ""
		return done(nil)
	case key.Matches(k, f.keys.Next):
		f.inputs[f.field].Blur()
		f.field = (f.field + 1) % len(f.inputs)
		return f.inputs[f.field].Focus()
	case key.Matches(k, f.keys.Prev):
		f.inputs[f.field].Blur()
		f.field = (f.field + len(f.inputs) - 1) % len(f.inputs)
		return f.inputs[f.field].Focus()
	case key.Matches(k, f.keys.Apply):
		cfg := f.cfg
		cfg.ID, cfg.Started, cfg.Sweep, cfg.Cell, cfg.Args, cfg.Name = "", time.Time{}, "", "", nil, "" // a name names one run
		for i, fl := range formFields {
			if err := fl.Set(&cfg, strings.TrimSpace(f.inputs[i].Value())); err != nil {
				f.note = fmt.Sprintf("--%s: %v", fl.Flag, err)
				return nil
			}
		}
		cfg.Eval.Seed = cfg.Settings.Seed // --seed seeds the evaluation too
		if err := config.Check(cfg); err != nil {
			f.note = err.Error()
			return nil
		}
		return done(&cfg)
	}
	var cmd tea.Cmd
	f.inputs[f.field], cmd = f.inputs[f.field].Update(k)
	return cmd
}

// SetSize gives the form the terminal's size.
func (f *runForm) SetSize(w, _ int) { f.width = w }

// View draws the form.
func (f *runForm) View() string {
	var sb strings.Builder
	sb.WriteString(styles.Title.Render("new run") + "  (every other setting is kept from the selected run)\n\n")
	for i := range f.inputs {
		sb.WriteString(f.inputs[i].View() + "\n")
	}
	if f.note != "" {
		sb.WriteString("\n" + styles.Warn.Render(f.note))
	}
	f.help.SetWidth(f.width)
	sb.WriteString("\n" + f.help.ShortHelpView(f.keys.ShortHelp()))
	return sb.String()
}
