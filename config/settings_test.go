package config

import (
	"fmt"
	"testing"

	"github.com/maple-ood/maple/runs"
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
			c := runs.DefaultConfig("cmnist")
			field := st.Field(&c)
			if st.Default != nil {
				if want, got := fmt.Sprintf("%T", field)[1:], fmt.Sprintf("%T", st.Default); want != got {
					t.Errorf("Default is a %s, the field a %s", got, want)
				}
			}
			v := st.Get(&c)
			var d runs.Config
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
	c := runs.DefaultConfig("cmnist")
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
