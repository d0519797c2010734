package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/tui/form"
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
// kept from it. A setting the run derived from others (keep0 from keep,
// the outer scale from the objective, the evaluation model from the
// search model; config.Pinned) is derived again from the edited fields,
// as `maple run` with the changed fields as flags would: such a field
// the person leaves shows the derived value, marked "derived".
type runForm struct {
	form.Model
	shown  []string        // what the form last put into each input
	cfg    runs.Config     // the config the form edits
	pinned map[string]bool // the settings of cfg kept as they are (config.Pinned)
	help   help.Model
	note   string // why the last enter was refused
	width  int
	// defaults are the plain defaults of the settings (config.Defaults)
	// on dataset defaultsOf: computed when the dataset changes, not at
	// every redraw.
	defaults   map[string]string
	defaultsOf string
}

// formDoneMsg closes the form: with the new run's whole config, checked,
// and the flags to resolve it with (config.ResolveSet), or nil when
// cancelled.
type formDoneMsg struct {
	cfg *runs.Config
	set map[string]bool
}

func newRunForm() *runForm {
	return &runForm{Model: form.Model{KeyMap: form.DefaultKeyMap("start")}, help: newHelp()}
}

// open fills the form from cfg (the defaults when cfg is empty) and
// focuses its first field.
func (f *runForm) open(cfg runs.Config) tea.Cmd {
	if cfg.Method == "" {
		// maple run's defaults, resolved as it resolves them: the fields a
		// recipe derives (a search's evaluation) show as derived.
		cfg = runs.DefaultConfig("synthetic")
		if r, err := config.ResolveSet(cfg, map[string]bool{}); err == nil {
			cfg = r
		}
	}
	f.cfg, f.pinned = cfg, config.Pinned(cfg)
	prompts := make([]string, len(formFields))
	f.shown = make([]string, len(formFields))
	for i, fl := range formFields {
		prompts[i] = fmt.Sprintf("%-12s ", fl.Flag)
		f.shown[i] = fl.Get(&cfg)
	}
	f.Model = form.New(f.KeyMap, prompts...)
	for i := range formFields {
		f.SetValue(i, f.shown[i])
	}
	f.SetWidth(f.inputWidth())
	f.note = ""
	return f.Focus(0)
}

func done(cfg *runs.Config, set map[string]bool) tea.Cmd {
	return func() tea.Msg { return formDoneMsg{cfg, set} }
}

// set returns the flags the new run keeps as given: the run's pinned
// settings and the fields the person changed.
func (f *runForm) set() map[string]bool {
	out := map[string]bool{}
	for k, v := range f.pinned {
		out[k] = v
	}
	for i, fl := range formFields {
		if strings.TrimSpace(f.Value(i)) != f.shown[i] {
			out[fl.Flag] = true
		}
	}
	return out
}

// config returns the config of the form's fields, unresolved.
func (f *runForm) config() (runs.Config, error) {
	cfg := f.cfg
	cfg.ID, cfg.Started, cfg.Sweep, cfg.Cell, cfg.Args, cfg.Name = "", time.Time{}, "", "", nil, "" // a name names one run
	cfg.SearchFrom = ""                                                                             // a new run searches
	for i, fl := range formFields {
		if err := fl.Set(&cfg, strings.TrimSpace(f.Value(i))); err != nil {
			return cfg, fmt.Errorf("--%s: %v", fl.Flag, err)
		}
	}
	cfg.Eval.Seed = cfg.Settings.Seed // --seed seeds the evaluation too
	return cfg, nil
}

// derive shows in each field the person left whose setting is derived
// the value the edited fields give it.
func (f *runForm) derive() {
	cfg, err := f.config()
	if err != nil {
		return
	}
	set := f.set()
	got, _ := config.ResolveSet(cfg, set)
	for i, fl := range formFields {
		if !set[fl.Flag] {
			f.shown[i] = fl.Get(&got)
			f.SetValue(i, f.shown[i])
		}
	}
}

// Update takes a key: tab and shift+tab move between fields, enter
// checks the config and closes the form with it, esc cancels.
func (f *runForm) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	act, cmd := f.Model.Update(k)
	switch act {
	case form.Cancel:
		f.note = ""
		return done(nil, nil)
	case form.Apply:
		cfg, err := f.config()
		if err == nil {
			_, err = config.ResolveSet(cfg, f.set())
		}
		if err != nil {
			f.note = err.Error()
			return nil
		}
		return done(&cfg, f.set())
	case form.Edited:
		f.derive()
	}
	return cmd
}

// SetSize gives the form the terminal's size: a field is at most 40
// cells, and narrower where its line (the flag, the field and "  default")
// would not fit.
func (f *runForm) SetSize(w, _ int) {
	f.width = w
	f.SetWidth(f.inputWidth())
}

// inputWidth is a field's width at the form's width: its prompt (13
// cells), the field, the cursor's cell and a mark ("  derived") fit.
func (f *runForm) inputWidth() int {
	if f.width <= 0 {
		return 40
	}
	return max(8, min(40, f.width-13-1-len("  derived")))
}

// dataset is the dataset the form's field names, else the copied run's.
func (f *runForm) dataset() string {
	for i, fl := range formFields {
		if fl.Flag == "dataset" {
			if v := strings.TrimSpace(f.Value(i)); v != "" {
				return v
			}
		}
	}
	return f.cfg.Dataset.Name
}

// plainDefaults returns config.Defaults of the form's dataset, computed
// again only when the dataset changed.
func (f *runForm) plainDefaults() map[string]string {
	if ds := f.dataset(); f.defaults == nil || ds != f.defaultsOf {
		f.defaults, f.defaultsOf = config.Defaults(ds), ds
	}
	return f.defaults
}

// View draws the form.
func (f *runForm) View() string {
	var sb strings.Builder
	// Wrapped at spaces within the width: cut, it lost its end.
	w := f.width
	if w <= 0 {
		w = 80 // no size yet
	}
	sb.WriteString(wrapSpaces(styles.Title.Render("new run")+"  (the rest as the selected run's; derived and default fields follow the others)", w, "") + "\n\n")
	set := f.set()
	for i, fl := range formFields {
		sb.WriteString(f.Model.View(i))
		if !set[fl.Flag] {
			// Not kept: derived from the others, which may leave it at
			// its plain default.
			mark := "  derived"
			if f.shown[i] == f.plainDefaults()[fl.Flag] {
				mark = "  default"
			}
			sb.WriteString(styles.Dim.Render(mark))
		}
		sb.WriteString("\n")
	}
	if f.note != "" {
		sb.WriteString("\n" + styles.Warn.Render(wrapSpaces(f.note, w, "")))
	}
	f.help.SetWidth(f.width)
	sb.WriteString("\n" + shortHelp(f.help, f.KeyMap.ShortHelp()))
	return sb.String()
}
