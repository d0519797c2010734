package baselines

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/train"
)

// TestStages: the baselines that train before their validated training
// (mrm's ERM and mask stages, jtt's first ERM) report every step of those
// stages, in order, and stop at the step where their context ends: a
// stopped mrm used to report nothing for two thirds of its time, and
// jtt's first stage ran on to its end after a stop.
func TestStages(t *testing.T) {
	sp := tinydata.Splits(40, 2, 7)
	for _, tc := range []struct {
		method string
		steps  func(*train.EvalSettings) // sets the stages' steps to 6
		want   []string                  // the stages, with their steps
	}{
		{method: "mrm", steps: func(es *train.EvalSettings) { es.Steps = 6 },
			want: []string{"1/3 ERM of the full network: 6 steps", "2/3 the mask's logits, the weights frozen: 6 steps"}},
		{method: "jtt", steps: func(es *train.EvalSettings) { es.JTTSteps = 6 },
			want: []string{"1/2 ERM, to find the errors to upweight: 6 steps"}},
	} {
		es := Recipe(tc.method, train.DefaultEval(), nil)
		es.Model, es.EvalEvery = "mlp:8", 2
		tc.steps(&es)
		t.Run(tc.method+" reports its stages", func(t *testing.T) {
			var got []string
			next := map[train.Stage]int{}
			ctx := train.WithStageProgress(context.Background(), func(st train.Stage, step, steps int) {
				if next[st]++; next[st] != step {
					t.Fatalf("stage %v: step %d after %d", st, step, next[st]-1)
				}
				if step == steps {
					got = append(got, fmt.Sprintf("%d/%d %s: %d steps", st.N, st.Of, st.Name, steps))
				}
			})
			if _, err := Train(ctx, sp, tc.method, es); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("stages %q, want %q", got, tc.want)
			}
		})
		t.Run(tc.method+" stops in its first stage", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			steps := 0
			ctx = train.WithStageProgress(ctx, func(st train.Stage, step, _ int) {
				steps++
				if step == 2 {
					cancel()
				}
			})
			if _, err := Train(ctx, sp, tc.method, es); !errors.Is(err, context.Canceled) || steps != 2 {
				t.Errorf("stopped at step 2 of its first stage: %d steps ran, error %v", steps, err)
			}
		})
	}
}
