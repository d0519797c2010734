package report

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
)

// TestDegenerateJTTSaysSo: a JTT whose first stage fits the training set
// (40 synthetic samples, an MLP, 600 first-stage steps) finds no error to
// upweight, so that its second stage is ERM; its log, its summary.json
// and maple show say so, and what to change. With one first-stage step
// the error set is not empty, and nothing says the run changed nothing.
// Before, none of them said how many samples stage 1 misclassified.
func TestDegenerateJTTSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name       string
		jttSteps   int
		degenerate string   // summary.json's result.reweighting.degenerate
		want       []string // in log.txt and in maple show
		wantNot    []string
	}{
		{name: "stage 1 fits the training set", jttSteps: 600, degenerate: "empty-set",
			want: []string{"error set 0 of 40 training samples", "changed nothing: the error set is empty",
				"try --jtt-steps below 600 (so that its first stage stops before it fits the training set)"}},
		{name: "stage 1 errs", jttSteps: 1, degenerate: "",
			want:    []string{"reweighting: 6 on the error set, 1 elsewhere; error set ", " in the error set, "},
			wantNot: []string{"changed nothing", "too little"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := runs.DefaultConfig("synthetic")
			cfg.Method = "jtt"
			cfg.Dataset.TrainSize = 40
			cfg.Eval.Model, cfg.Eval.Optimizer, cfg.Eval.LR = "mlp:64", "adam", 0.01
			cfg.Eval.Steps, cfg.Eval.EvalEvery, cfg.Eval.JTTSteps = 20, 10, tc.jttSteps
			r, err := runs.Open(t.TempDir()).Create(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := session.Headless(context.Background(), r, nil, session.Options{}, io.Discard); err != nil {
				t.Fatal(err)
			}
			logb, err := os.ReadFile(r.Path(runs.LogFile))
			if err != nil {
				t.Fatal(err)
			}
			var show strings.Builder
			WriteShow(&show, r.Dir)
			for what, text := range map[string]string{"log.txt": string(logb), "maple show": show.String()} {
				for _, w := range tc.want {
					if !strings.Contains(text, w) {
						t.Errorf("%s lacks %q:\n%s", what, w, text)
					}
				}
				for _, w := range tc.wantNot {
					if strings.Contains(text, w) {
						t.Errorf("%s says %q:\n%s", what, w, text)
					}
				}
			}
			b, err := os.ReadFile(r.Path(runs.SummaryFile))
			if err != nil {
				t.Fatal(err)
			}
			var sum struct {
				Result struct {
					Reweighting *struct {
						Degenerate string `json:"degenerate"`
						Set        struct {
							Size int `json:"size"`
						} `json:"set"`
					} `json:"reweighting"`
				} `json:"result"`
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			rw := sum.Result.Reweighting
			switch {
			case rw == nil:
				t.Fatalf("summary.json has no result.reweighting:\n%s", b)
			case rw.Degenerate != tc.degenerate:
				t.Errorf("summary.json's degenerate %q, want %q", rw.Degenerate, tc.degenerate)
			case tc.degenerate == "" && rw.Set.Size == 0:
				t.Errorf("summary.json's error set is empty:\n%s", b)
			}
		})
	}
}
