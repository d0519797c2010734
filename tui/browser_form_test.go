package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// formFill opens the form on src, writes each edit (flag: value) into
// its field as keys, and returns the form and the message of enter.
func formFill(t *testing.T, src runs.Config, edits [][2]string) (*runForm, tea.Msg) {
	t.Helper()
	f := newRunForm()
	f.open(src)
	for _, e := range edits {
		i := formIndex(t, e[0])
		for f.Field != i {
			f.Update(keyMsg("tab"))
		}
		f.Update(keyMsg("ctrl+u"))
		for _, r := range e[1] {
			f.Update(keyMsg(string(r)))
		}
	}
	cmd := f.Update(keyMsg("enter"))
	if cmd == nil {
		return f, nil
	}
	return f, cmd()
}

func formIndex(t *testing.T, flag string) int {
	t.Helper()
	for i, fl := range formFields {
		if fl.Flag == flag {
			return i
		}
	}
	t.Fatalf("the form has no field %s", flag)
	return -1
}

// TestRunFormDerives: the form's run resolves as `maple run` with the
// changed fields as flags: the outer scale follows an objective changed
// in the form, keep0 follows keep (keep 1 is not refused as above a
// keep0 the form would not show), and a setting the selected run gave
// its own value is kept.
func TestRunFormDerives(t *testing.T) {
	resolved := func(edit func(c *runs.Config), set ...string) runs.Config {
		c := testConfig()
		edit(&c)
		s := map[string]bool{"model": true}
		for _, k := range set {
			s[k] = true
		}
		c, err := config.ResolveSet(c, s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	none := func(*runs.Config) {}
	cases := []struct {
		name  string
		src   runs.Config
		edits [][2]string
		check func(c runs.Config) bool
	}{
		{"irmv1 to rex: rex's outer scale", resolved(none), [][2]string{{"objective", "rex"}},
			func(c runs.Config) bool { return c.Settings.Objective == "rex" && c.Settings.OuterScale == 0 }},
		{"rex to irmv1: irmv1's outer scale", resolved(func(c *runs.Config) { c.Settings.Objective = "rex" }), [][2]string{{"objective", "irmv1"}},
			func(c runs.Config) bool { return c.Settings.OuterScale == core.ObjectiveScale("irmv1") }},
		{"an outer scale given is kept", resolved(func(c *runs.Config) { c.Settings.OuterScale = 0.7 }, "outer-scale"), [][2]string{{"objective", "rex"}},
			func(c runs.Config) bool { return c.Settings.OuterScale == 0.7 }},
		{"keep 0.5: keep0 follows", resolved(none), [][2]string{{"keep", "0.5"}},
			func(c runs.Config) bool { return c.Settings.Keep == 0.5 && c.Settings.Keep0 == 0.5 }},
		{"keep 1, weights learnt: keep0 follows", resolved(none), [][2]string{{"weight-lr", "0.25"}, {"keep", "1"}},
			func(c runs.Config) bool { return c.Settings.Keep == 1 && c.Settings.Keep0 == 1 }},
		{"learnt weights", resolved(none), [][2]string{{"weight-lr", "0.25"}, {"keep", "1"}, {"keep0", "1"}},
			func(c runs.Config) bool {
				return c.Settings.WeightLR == 0.25 && c.Settings.Keep == 1 && c.Settings.Keep0 == 1
			}},
		{"an annealing run's keep0 is kept", resolved(func(c *runs.Config) { c.Settings.Keep, c.Settings.Keep0 = 0.1, 0.9 }, "keep", "keep0"), [][2]string{{"seed", "3"}},
			func(c runs.Config) bool {
				return c.Settings.Keep == 0.1 && c.Settings.Keep0 == 0.9 && c.Settings.Seed == 3
			}},
		{"from a baseline to a rex search", resolved(func(c *runs.Config) { c.Method = "erm" }), [][2]string{{"method", "maple"}, {"objective", "rex"}},
			func(c runs.Config) bool { return c.Method == "maple" && c.Settings.OuterScale == 0 }},
		{"the evaluation model follows the search model", resolved(none), [][2]string{{"model", "mlp:8"}},
			func(c runs.Config) bool { return c.Settings.Model == "mlp:8" && c.Eval.Model == "mlp:8" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, msg := formFill(t, tc.src, tc.edits)
			m, ok := msg.(formDoneMsg)
			if !ok || m.cfg == nil {
				t.Fatalf("not started: %q", f.note)
			}
			c, err := config.ResolveSet(*m.cfg, m.set)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(c) {
				t.Errorf("resolved: objective %s outer-scale %g keep %g keep0 %g weight-lr %g seed %d model %s eval-model %s",
					c.Settings.Objective, c.Settings.OuterScale, c.Settings.Keep, c.Settings.Keep0, c.Settings.WeightLR, c.Settings.Seed, c.Settings.Model, c.Eval.Model)
			}
		})
	}
}

// TestRunFormShowsDerived: a derived field the person leaves shows the
// value the edited fields give it, marked derived; one at its plain
// default is marked default.
func TestRunFormShowsDerived(t *testing.T) {
	f := newRunForm()
	f.open(testConfig())
	i := formIndex(t, "keep")
	for f.Field != i {
		f.Update(keyMsg("tab"))
	}
	f.Update(keyMsg("ctrl+u"))
	for _, r := range "0.5" {
		f.Update(keyMsg(string(r)))
	}
	if v := f.Inputs[formIndex(t, "keep0")].Value(); v != "0.5" {
		t.Errorf("keep0 shows %s, want 0.5", v)
	}
	var line string
	for _, l := range strings.Split(f.View(), "\n") {
		if strings.Contains(l, "keep0") {
			line = l
		}
	}
	if !strings.Contains(line, "derived") {
		t.Errorf("keep0's line not marked derived: %q", line)
	}
	// A field left at its plain default says so; one a recipe derives
	// (a search's evaluation steps) says derived.
	empty := newRunForm()
	empty.open(runs.Config{})
	marks := map[string]string{}
	for _, l := range strings.Split(ansi.Strip(empty.View()), "\n") {
		if fs := strings.Fields(l); len(fs) >= 3 {
			marks[fs[0]] = fs[len(fs)-1]
		}
	}
	if marks["seed"] != "default" || marks["eval-steps"] != "derived" {
		t.Errorf("seed marked %q, eval-steps %q: want default and derived", marks["seed"], marks["eval-steps"])
	}
}

// TestRunFormFromNothing: the form opened with no run to copy (an empty
// runs list) starts the run `maple run` starts, a search's evaluation
// included (it kept the unresolved defaults' lr 0.1 and 500 steps as if
// given).
func TestRunFormFromNothing(t *testing.T) {
	f, msg := formFill(t, runs.Config{}, nil)
	m, ok := msg.(formDoneMsg)
	if !ok || m.cfg == nil {
		t.Fatalf("not started: %q", f.note)
	}
	got, err := config.ResolveSet(*m.cfg, m.set)
	if err != nil {
		t.Fatal(err)
	}
	want, err := config.ResolveSet(runs.DefaultConfig("synthetic"), map[string]bool{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash(false) != want.Hash(false) {
		t.Errorf("the form's run\n %+v\n %+v\nwant maple run's\n %+v\n %+v", got.Settings, got.Eval, want.Settings, want.Eval)
	}
}

// TestRunFormFitsWidth: the new-run form's header wraps within the
// terminal, every word of it on the screen (at 80 columns it was cut
// after "default fields").
func TestRunFormFitsWidth(t *testing.T) {
	for _, w := range []int{60, 80, 120} {
		f := newRunForm()
		f.open(testConfig())
		f.SetSize(w, 24)
		view := ansi.Strip(f.View())
		for i, l := range strings.Split(view, "\n") {
			if lw := ansi.StringWidth(l); lw > w {
				t.Errorf("%d columns: line %d is %d wide: %q", w, i, lw, l)
			}
		}
		if text := strings.Join(strings.Fields(view), " "); !strings.Contains(text, "derived and default fields follow the others") {
			t.Errorf("%d columns: the header is cut:\n%s", w, view)
		}
	}
}
