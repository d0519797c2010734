package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
	"github.com/maple-ood/maple/train"
)

// TestTableSaysWhatIsMissing: a sweep's table that lacks cells says
// which and why (a cell running in another process, one not started, one
// stopped), with the cells named as people read them ("synthetic n=all
// linear erm seed 2", not "synthetic|0|linear|erm|2"); it printed a table
// with n=1 and no note, as a sweep's survivor did beside a cell another
// process held. The sweep's status lists the cells the same way.
func TestTableSaysWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	g, err := sweeps.ParseGrid("synthetic", "erm", "1,2,3,4", "", "")
	if err != nil {
		t.Fatal(err)
	}
	base := runs.DefaultConfig("synthetic")
	cells, err := g.Cells(base, map[string]bool{}, base.Eval.Model)
	if err != nil {
		t.Fatal(err)
	}
	sw := &sweeps.Sweep{Name: "s", Dir: dir, Cells: cells}
	if err := sw.Record(); err != nil {
		t.Fatal(err)
	}
	run := func(i int) *runs.Run { // cell i's run, as the sweep creates it
		cfg := cells[i].Config
		cfg.Sweep, cfg.Cell = "s", cells[i].Label
		r, err := runs.Open(dir).Create(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	done := run(0)
	done.WriteSummary(&runs.Summary{Done: true, Status: core.StatusDone, Finished: time.Now(), BestValWorst: -1,
		Result: &train.Result{Method: "erm", TestAcc: 0.5, TestWorst: 0.25, ValWorst: 0.3}})
	done.Close()
	held := run(1) // running in another process: held
	defer held.Close()
	stopped := run(2)
	stopped.WriteSummary(&runs.Summary{Status: core.StatusStopped, Finished: time.Now(), BestValWorst: -1})
	stopped.Close()
	// cell 3 (seed 4): not started.
	for _, format := range []string{"text", "markdown", "csv"} {
		t.Run(format, func(t *testing.T) {
			var out, errOut bytes.Buffer
			f := &Factory{Out: &out, Err: &errOut, RunsDir: dir, Terminal: func() bool { return false }}
			if err := tableRun(&TableOptions{F: f, Sweeps: []string{"s"}, Format: format}); err != nil {
				t.Fatal(err)
			}
			note := out.String()
			if format == "csv" {
				note = errOut.String() // the CSV stays a CSV
				if strings.Contains(out.String(), "seed 2") {
					t.Errorf("the note went into the CSV:\n%s", out.String())
				}
			}
			for _, want := range []string{"3 of 4 cells", "synthetic n=all linear erm seed 2: running (run " + held.Config.ID,
				"synthetic n=all linear erm seed 3: stopped", "synthetic n=all linear erm seed 4: not started"} {
				if !strings.Contains(note, want) {
					t.Errorf("the table's note lacks %q:\nstdout:\n%s\nstderr:\n%s", want, out.String(), errOut.String())
				}
			}
		})
	}
	var out bytes.Buffer
	f := &Factory{Out: &out, Err: &bytes.Buffer{}, RunsDir: dir, Terminal: func() bool { return false }}
	if err := sweepStatus(f, &SweepOptions{Name: "s"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "synthetic n=all linear erm seed 1") || strings.Contains(out.String(), "|") {
		t.Errorf("sweep --status:\n%s", out.String())
	}
}
