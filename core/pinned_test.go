package core_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

var updatePinned = flag.Bool("update", false, "rewrite testdata/pinned-weights.golden")

// TestPinnedWeights pins, bit for bit, what a small search finds with
// every outer objective (its weights, keep scores and kept set) and what
// every comparison method trains (its selected parameters and figures),
// so that a refactoring that must change no number shows that it did
// not. The hashes are the pure-Go build's: OpenBLAS and oneDNN choose
// their kernels by CPU, so their bits differ from machine to machine.
// `go test ./core -run TestPinnedWeights -update` rewrites them, for a
// change meant to change the numbers.
func TestPinnedWeights(t *testing.T) {
	if !strings.HasPrefix(nets.BLAS(), "gonum") {
		t.Skipf("the pinned hashes are the pure-Go build's; this build uses %s", nets.BLAS())
	}
	var got []string
	for _, obj := range core.Objectives() {
		for _, opt := range []string{"", "detach"} {
			s := core.EngineSettings("warm")
			s.Objective, s.SelectIterate = obj, "final" // the last iterate: every step shows
			if opt == "detach" {
				s.DetachSum, s.MaskEps, s.OuterScale = true, 1e-20, 0.5
			}
			e, err := core.New(tinydata.Splits(40, 2, 3), s)
			if err != nil {
				t.Fatal(err)
			}
			if st := core.RunAll(t, e); st != core.StatusDone {
				t.Fatalf("%s: status %s", obj, st)
			}
			o := e.Output()
			got = append(got, fmt.Sprintf("maple:%s%s %s", obj, map[string]string{"detach": "+detach"}[opt], tinydata.Hash(o.W, o.S, o.Keep)))
		}
	}
	es := train.DefaultEval()
	es.Model, es.Steps, es.EvalEvery, es.JTTSteps, es.PenaltyAnneal = "mlp:4", 30, 5, 10, 10
	sp := tinydata.Splits(40, 2, 4)
	sp.Oracle = tinydata.Splits(40, 2, 5)
	for _, m := range baselines.Methods() {
		if m == core.MethodMaple {
			continue
		}
		variants := []train.EvalSettings{es}
		if baselines.HasRecipe(m) { // the IRM code's recipe: Adam, L2, its penalty schedule
			variants = append(variants, baselines.Recipe(m, es, map[string]bool{"EvalSettings.Steps": true, "EvalSettings.PenaltyAnneal": true}))
		}
		for i, v := range variants {
			r, err := baselines.Train(context.Background(), sp, m, v)
			if err != nil {
				t.Fatalf("%s: %v", m, err)
			}
			got = append(got, fmt.Sprintf("%s%s %s", m, []string{"", "+recipe"}[i], tinydata.Hash(r.Theta, []float64{r.TestAcc, r.TestWorst, r.ValWorst, float64(r.SelectedStep)})))
		}
	}
	path := filepath.Join("testdata", "pinned-weights.golden")
	text := strings.Join(got, "\n") + "\n"
	if *updatePinned {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with -update)", err)
	}
	if string(want) != text {
		t.Errorf("weights changed (bits); got:\n%s\nwant:\n%s", text, want)
	}
}
