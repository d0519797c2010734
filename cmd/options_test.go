package cmd

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestCommandOptions parses each command's arguments and flags into its
// Options through runF (nothing runs) and compares them with what the
// command line says, as cli/cli tests its commands.
func TestCommandOptions(t *testing.T) {
	f := &Factory{Out: new(bytes.Buffer), Err: new(bytes.Buffer), RunsDir: "r", Terminal: func() bool { return false }}
	var got any
	keep := func(o any) error { got = o; return nil }
	cases := []struct {
		name string
		cmd  *cobra.Command
		args []string
		want any
	}{
		{"ls", NewCmdLs(f, func(o *LsOptions) error { return keep(*o) }), []string{"--json", "--tag", "paper", "--sort", "time"}, LsOptions{F: f, JSON: true, Tags: []string{"paper"}, Sort: "time"}},
		{"show", NewCmdShow(f, func(o *ShowOptions) error { return keep(*o) }), []string{"RUN1", "--json"}, ShowOptions{F: f, ID: "RUN1", JSON: true}},
		{"export", NewCmdExport(f, func(o *ExportOptions) error { return keep(*o) }),
			[]string{"RUN1", "--format", "npy", "--out", "w", "--checkpoint", "--data-dir", "/d"},
			func() ExportOptions {
				o := ExportOptions{F: f, ID: "RUN1", Format: "npy", Out: "w", Unfinished: true}
				o.Overrides.DataDir = "/d"
				return o
			}()},
		{"eval", NewCmdEval(f, func(o *EvalOptions) error { return keep(*o) }), []string{"RUN1", "--model", "cnn", "--eval-steps", "7"},
			EvalOptions{F: f, ID: "RUN1", Model: "cnn", Steps: 7}},
		{"attach", NewCmdAttach(f, func(o *AttachOptions) error { return keep(*o) }), []string{"RUN1", "--lines"}, AttachOptions{F: f, ID: "RUN1", Lines: true}},
		{"table", NewCmdTable(f, func(o *TableOptions) error { return keep(*o) }), []string{"--sweep", "cm", "--per-run", "--format", "csv"},
			TableOptions{F: f, Sweeps: []string{"cm"}, Format: "csv", PerRun: true}},
		{"plot", NewCmdPlot(f, func(o *PlotOptions) error { return keep(*o) }), []string{"cm", "--out", "figs"}, PlotOptions{F: f, Name: "cm", Out: "figs"}},
		{"stop", NewCmdStop(f, func(o *StopOptions) error { return keep(*o) }), []string{"cm", "--wait", "5s"}, StopOptions{F: f, Name: "cm", Wait: 5 * time.Second}},
		{"logs", NewCmdLogs(f, func(o *LogsOptions) error { return keep(*o) }), []string{"RUN1", "-f"}, LogsOptions{F: f, ID: "RUN1", Follow: true}},
		{"rm", NewCmdRm(f, func(o *RmOptions) error { return keep(*o) }), []string{"RUN1", "cm", "--yes"}, RmOptions{F: f, Names: []string{"RUN1", "cm"}, Yes: true}},
		{"archive", NewCmdArchive(f, func(o *RmOptions) error { return keep(*o) }), []string{"cm", "--restore"}, RmOptions{F: f, Names: []string{"cm"}, Archive: true, Restore: true}},
		{"reproduce", NewCmdReproduce(f, func(o *ReproduceOptions) error { return keep(*o) }), []string{"synthetic", "--check", "--jobs", "2"},
			ReproduceOptions{F: f, Name: "synthetic", Check: true, Jobs: 2}},
		{"table group-by", NewCmdTable(f, func(o *TableOptions) error { return keep(*o) }), []string{"--group-by", "objective,keep"},
			TableOptions{F: f, Format: "text", GroupBy: []string{"objective", "keep"}}},
		{"ls archived", NewCmdLs(f, func(o *LsOptions) error { return keep(*o) }), []string{"--archived"}, LsOptions{F: f, Sort: "started", Archived: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			tc.cmd.SetArgs(tc.args)
			tc.cmd.SetOut(new(bytes.Buffer))
			if err := tc.cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("options\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
	t.Run("data", func(t *testing.T) {
		var o *DataOptions
		c := NewCmdData(f, func(d *DataOptions) error { o = d; return nil })
		c.SetArgs([]string{"cmnist", "--train-size", "500", "--seed", "3", "--json"})
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
		if o == nil || o.Config.Dataset.Name != "cmnist" || o.Config.Dataset.TrainSize != 500 || o.Config.Settings.Seed != 3 || !o.JSON {
			t.Errorf("data options %+v", o)
		}
	})
	t.Run("eval without --model is refused before running", func(t *testing.T) {
		ran := false
		c := NewCmdEval(f, func(*EvalOptions) error { ran = true; return nil })
		c.SetArgs([]string{"RUN1"})
		c.SilenceUsage, c.SilenceErrors = true, true
		if err := c.Execute(); err == nil || ran {
			t.Errorf("err %v, ran %v", err, ran)
		}
	})
}
