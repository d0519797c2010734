package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/report"
)

// TestCompletionValues: a flag's completion offers the values its row of
// the settings table lists (from the registries), on maple run and on
// every command that has the flag; --format offers the table formats.
func TestCompletionValues(t *testing.T) {
	type tc struct {
		args []string
		want []string
	}
	cases := map[string]tc{"table --format": {[]string{"table", "--format"}, report.TableFormats}}
	for _, st := range config.Table {
		if st.Values == nil {
			continue
		}
		cases["run --"+st.Flag] = tc{[]string{"run", "--" + st.Flag}, st.Values()}
		if !st.Axis {
			cases["sweep --"+st.Flag] = tc{[]string{"sweep", "--" + st.Flag}, st.Values()}
		}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if len(c.want) == 0 {
				t.Fatal("no values listed")
			}
			var out bytes.Buffer
			f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: t.TempDir(), Terminal: func() bool { return false }}
			root := NewCmdRoot(f)
			root.SetOut(&out)
			root.SetArgs(append([]string{"__complete"}, append(c.args, "")...))
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(got) == 0 || strings.Join(got[:len(got)-1], ",") != strings.Join(c.want, ",") {
				t.Errorf("completion %q, want %q", got, c.want)
			}
		})
	}
}
