package core

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

var updatePinned = flag.Bool("update", false, "rewrite testdata/pinned-weights.golden")

// pinHash is the SHA-256 of the bits of every slice, in order.
func pinHash(parts ...any) string {
	h := sha256.New()
	for _, p := range parts {
		switch v := p.(type) {
		case []float64:
			for _, x := range v {
				binary.Write(h, binary.LittleEndian, math.Float64bits(x))
			}
		case []float32:
			for _, x := range v {
				binary.Write(h, binary.LittleEndian, math.Float32bits(x))
			}
		case []bool:
			binary.Write(h, binary.LittleEndian, v)
		default:
			panic(fmt.Sprintf("pinHash: %T", p))
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

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
	for _, obj := range Objectives {
		for _, opt := range []string{"", "detach"} {
			s := engineSettings("warm")
			s.Objective, s.SelectIterate = obj, "final" // the last iterate: every step shows
			if opt == "detach" {
				s.DetachSum, s.MaskEps, s.OuterScale = true, 1e-20, 0.5
			}
			e, err := New(tinySplits(40, 2, 3), s)
			if err != nil {
				t.Fatal(err)
			}
			if st := runAll(t, e, &scriptRec{}); st != StatusDone {
				t.Fatalf("%s: status %s", obj, st)
			}
			o := e.Output()
			got = append(got, fmt.Sprintf("maple:%s%s %s", obj, map[string]string{"detach": "+detach"}[opt], pinHash(o.W, o.S, o.Keep)))
		}
	}
	es := train.DefaultEval()
	es.Model, es.Steps, es.EvalEvery, es.JTTSteps, es.PenaltyAnneal = "mlp:4", 30, 5, 10, 10
	sp := tinySplits(40, 2, 4)
	sp.Oracle = tinySplits(40, 2, 5)
	for _, m := range Methods {
		if m == "maple" {
			continue
		}
		variants := []train.EvalSettings{es}
		if HasBaselineRecipe(m) { // the IRM code's recipe: Adam, L2, its penalty schedule
			variants = append(variants, BaselineRecipe(m, es, map[string]bool{"EvalSettings.Steps": true, "EvalSettings.PenaltyAnneal": true}))
		}
		for i, v := range variants {
			r, err := Baseline(context.Background(), sp, m, v)
			if err != nil {
				t.Fatalf("%s: %v", m, err)
			}
			got = append(got, fmt.Sprintf("%s%s %s", m, []string{"", "+recipe"}[i], pinHash(r.Theta, []float64{r.TestAcc, r.TestWorst, r.ValWorst, float64(r.SelectedStep)})))
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
