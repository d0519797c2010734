package runs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/train"
)

// TestStatBaselineTime: a finished baseline lists how long it trained
// (it records no iterations, whose elapsed time a search lists).
func TestStatBaselineTime(t *testing.T) {
	r, err := Open(t.TempDir()).Create(Config{Method: "lff"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := Stat(r.Dir).DurationText(); got != "-" {
		t.Errorf("before it ends: %q, want -", got)
	}
	if err := r.WriteSummary(&Summary{Done: true, Status: core.StatusDone, Result: &train.Result{}, Seconds: 90.2}); err != nil {
		t.Fatal(err)
	}
	if got := Stat(r.Dir).DurationText(); got != "1m30s" {
		t.Errorf("done: %q, want 1m30s", got)
	}
}

// TestContinue: how to go on with a run that did not finish. A search
// resumes from its checkpoint; a baseline keeps none, and is told so
// rather than pointed at an iteration and a checkpoint it never had.
func TestContinue(t *testing.T) {
	search := Config{ID: "S", Method: core.MethodMaple}
	base := Config{ID: "B", Method: "lff"}
	tests := []struct {
		name string
		cfg  Config
		sum  Summary
		want []string // "" alone: the empty string
		not  string
	}{
		{"search interrupted", search, Summary{Status: core.StatusInterrupted, Iter: 7}, []string{"run S interrupted at iteration 7; its state is checkpointed: continue with maple resume S --runs-dir R"}, "baseline"},
		{"search failed on NaN", search, Summary{Status: core.StatusFailed, Iter: 3, Error: "non-finite outer risk", Rates: core.LearningRates{Weight: 0.25, Keep: 0.05, Inner: 0.1}},
			[]string{"failed at iteration 3", "--inner-lr 0.01"}, "baseline"},
		{"baseline interrupted", base, Summary{Status: core.StatusInterrupted}, []string{"run B (lff) interrupted before it finished; a baseline keeps no checkpoint: maple resume B --runs-dir R trains it again from the start"}, "iteration"},
		{"baseline stopped", base, Summary{Status: core.StatusStopped}, []string{"run B (lff) stopped before it finished"}, "checkpointed"},
		{"baseline failed", base, Summary{Status: core.StatusFailed, Error: "lff: gradient is not finite at step 12; lower the learning rate"},
			[]string{"run B (lff) failed: lff: gradient is not finite at step 12", "train it again with: maple resume B"}, "iteration"},
		{"done", base, Summary{Status: core.StatusDone}, []string{""}, "resume"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Open("R").Continue(&tc.sum, tc.cfg)
			for _, w := range tc.want {
				if (w == "" && got != "") || !strings.Contains(got, w) {
					t.Errorf("got %q, want %q", got, w)
				}
			}
			if strings.Contains(got, tc.not) {
				t.Errorf("got %q, which should not say %q", got, tc.not)
			}
		})
	}
}

func TestParseProgress(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       string // TrainStep.String; "" when the line is not one
	}{
		{name: "validated training", line: ProgressPrefix + "250/501: val worst-group 0.1714  (test worst-group 0.1422)", want: "step 250/501"},
		{name: "earlier stage", line: ProgressPrefix + "200/501, stage 1 of 3 (ERM of the full network)", want: "stage 1/3, 200/501"},
		{name: "another line", line: "run 20261124-090545-01 in /tmp/runs/20261124-090545-01"},
		{name: "no numbers", line: ProgressPrefix + "x/y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, ok := ParseProgress(tc.line)
			if got := st.String(); ok != (tc.want != "") || (ok && got != tc.want) {
				t.Errorf("ParseProgress(%q) = %q, %v; want %q", tc.line, got, ok, tc.want)
			}
		})
	}
}

// TestStatBaselineStep: a running baseline lists where its training
// stands (its log's last progress line; it listed "-" for all of a
// 40-minute run), and no longer once it has ended.
func TestStatBaselineStep(t *testing.T) {
	r, err := Open(t.TempDir()).Create(Config{Method: "mrm"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := Stat(r.Dir).IterText(); got != "-" {
		t.Errorf("before any progress line: %q, want -", got)
	}
	f, err := r.OpenLog()
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("run x in y\n" + ProgressPrefix + "100/501, stage 1 of 3 (ERM of the full network)\n" +
		ProgressPrefix + "200/501, stage 1 of 3 (ERM of the full network)\n")
	f.Close()
	if got := Stat(r.Dir).IterText(); got != "stage 1/3, 200/501" {
		t.Errorf("running: %q", got)
	}
	r.Close()
	if in := Stat(r.Dir); in.Step != nil || in.IterText() != "-" {
		t.Errorf("ended (%s): %q", in.Status, in.IterText())
	}
}

// TestReadProgress: the progress lines of a baseline's log, read back
// with their checks' figures, from its latest training only (a stopped
// mrm trained again begins at stage 1).
func TestReadProgress(t *testing.T) {
	r, err := Open(t.TempDir()).Create(Config{Method: "mrm"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := ReadProgress(r.Dir); got != nil {
		t.Errorf("without a log: %v", got)
	}
	f, _ := r.OpenLog()
	f.WriteString("run x in y\n" +
		ProgressPrefix + "100/501, stage 1 of 3 (ERM of the full network)\n" +
		ProgressPrefix + "50/501, stage 2 of 3 (the mask)\n" +
		ProgressPrefix + "60/501: val worst-group 0.5000  (test worst-group 0.4000)\n" + // stopped in stage 3
		"run x in y\n" +
		ProgressPrefix + "50/501, stage 1 of 3 (ERM of the full network)\n" +
		ProgressPrefix + "501/501, stage 1 of 3 (ERM of the full network)\n" +
		ProgressPrefix + "501/501, stage 2 of 3 (the mask)\n" +
		ProgressPrefix + "50/501: val worst-group 0.2500  (test worst-group 0.1250)\n" +
		ProgressPrefix + "60/501: val worst-group 0.3750  (test worst-group 0.5000)\n")
	f.Close()
	var got []string
	for _, st := range ReadProgress(r.Dir) {
		s := st.String()
		if st.Check {
			s += fmt.Sprintf(" %g/%g", st.ValWorst, st.TestWorst)
		}
		got = append(got, s)
	}
	if want := "[stage 1/3, 50/501 stage 1/3, 501/501 stage 2/3, 501/501 step 50/501 0.25/0.125 step 60/501 0.375/0.5]"; fmt.Sprint(got) != want {
		t.Errorf("got  %v\nwant %s", got, want)
	}
}

func TestSearchTime(t *testing.T) {
	snaps := []*core.Snapshot{{Seconds: core.Timing{Inner: 1.5, OuterGrad: 0.25, Hyper: 0.5}}, {Seconds: core.Timing{Inner: 2, OuterGrad: 0.5, Hyper: 0.25}}}
	if got, want := SearchTime(snaps), (core.Timing{Inner: 3.5, OuterGrad: 0.75, Hyper: 0.75}); got != want {
		t.Errorf("SearchTime = %+v, want %+v", got, want)
	}
	if got := SearchTime(nil); got != (core.Timing{}) {
		t.Errorf("no iterations: %+v", got)
	}
}
