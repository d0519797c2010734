package config

import (
	"fmt"
	"strings"
	"testing"
)

// TestSettingsTable checks the table's rows: one row per flag, a Default
// of its field's type, and Get and Set that round-trip every setting of a
// default config and refuse a value of the wrong kind, naming it.
func TestSettingsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, st := range Table {
		t.Run(st.Flag, func(t *testing.T) {
			if seen[st.Flag] {
				t.Fatalf("flag %s has two rows", st.Flag)
			}
			seen[st.Flag] = true
			if !st.NoFlag && st.HelpText() == "" {
				t.Error("a flag without help")
			}
			c := DefaultConfig("cmnist")
			field := st.Field(&c)
			if st.Default != nil {
				if want, got := fmt.Sprintf("%T", field)[1:], fmt.Sprintf("%T", st.Default); want != got {
					t.Errorf("Default is a %s, the field a %s", got, want)
				}
			}
			v := st.Get(&c)
			var d Config
			if err := st.Set(&d, v); err != nil {
				t.Fatalf("Set(%q): %v", v, err)
			}
			if got := st.Get(&d); got != v {
				t.Errorf("round trip: %q, want %q", got, v)
			}
			if _, ok := field.(*string); !ok {
				if err := st.Set(&d, "x1"); err == nil || err.Error() == "" {
					t.Errorf("Set(\"x1\") on a %T: %v", field, err)
				}
			}
		})
	}
	c := DefaultConfig("cmnist")
	n := 0
	for _, st := range Table {
		if st.Result {
			n++
		}
	}
	if got := len(Flags(c)); got != n {
		t.Errorf("Flags has %d settings, the table %d Result rows", got, n)
	}
}

// TestHelpSaysMapleDefaults: an evaluation flag whose default a maple
// search replaces says the search's own (core.MapleEvaluation), with its
// condition where it has one; a flag it leaves says nothing more.
func TestHelpSaysMapleDefaults(t *testing.T) {
	help := map[string]string{}
	for _, s := range Table {
		help[s.Flag] = s.HelpText()
	}
	for _, c := range []struct{ flag, want string }{
		{"eval-lr", "; a maple search defaults to 1"},
		{"eval-steps", "; a maple search defaults to 200"},
		{"eval-weight-decay", "; a maple search defaults to 0"},
		{"eval-every", "; a maple search defaults to 1"},
		{"eval-min-step", "; a maple search defaults to 1"},
		{"eval-same-init", "; a maple search defaults to true where the evaluation model is the search model"},
	} {
		if !strings.HasSuffix(help[c.flag], c.want) {
			t.Errorf("--%s help %q, want it to end %q", c.flag, help[c.flag], c.want)
		}
	}
	for _, flag := range []string{"eval-momentum", "eval-model", "penalty", "keep"} {
		if strings.Contains(help[flag], "a maple search defaults") {
			t.Errorf("--%s help %q names a maple default it does not have", flag, help[flag])
		}
	}
}
