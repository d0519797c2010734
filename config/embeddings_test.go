package config

import (
	"context"
	"testing"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/loaders"
)

// TestEmbeddingsRecipes: on waterbirds-sim (64 features, so that it is
// fast) each method that reads the groups, at what `maple run
// --dataset waterbirds-sim --method M` resolves to, ends well above ERM
// and within 5 points of the core direction alone (0.84 in every
// group). At the ColoredMNIST defaults (mlp:390,390, weight decay 0.001)
// group DRO and upweighting memorised the minority groups and ended at
// 0.49, ERM at 0.27.
func TestEmbeddingsRecipes(t *testing.T) {
	resolve := func(method string) Config {
		c := DefaultConfig("waterbirds-sim")
		c.Method, c.Dataset.Dim = method, 64
		c.Settings.Model = "mlp:390,390" // what cmd's flags hold without --model
		c, err := Resolve(c, map[string]bool{"dataset": true, "method": true, "dim": true}, "")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	sp, err := Prepare(resolve("erm"), nil)
	if err != nil {
		t.Fatal(err)
	}
	worst := func(method string) float64 {
		r, err := baselines.Train(context.Background(), sp, method, resolve(method).Eval)
		if err != nil {
			t.Fatal(err)
		}
		return r.TestWorst
	}
	erm := worst("erm")
	core := loaders.DefaultWaterbirdsSim().CoreAcc
	for _, c := range []struct{ name, method string }{
		{"group DRO", "groupdro"},
		{"group upweighting", "upweight"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := worst(c.method)
			if got < erm+0.3 || got < core-0.05 {
				t.Errorf("%s: test worst-group %.3f, ERM's %.3f: want at least 0.3 above ERM's and within 0.05 of the core direction's %.2f",
					c.method, got, erm, core)
			}
		})
	}
}

// TestDefaultModel: without --model a run's search (and evaluation)
// model is the dataset's: linear on synthetic and on embeddings, where
// mlp:390,390 memorised (it was linear on synthetic alone); --model
// given is kept.
func TestDefaultModel(t *testing.T) {
	for _, c := range []struct {
		name, dataset, model string
		set                  bool
		want                 string
	}{
		{"synthetic", "synthetic", "mlp:390,390", false, "linear"},
		{"waterbirds-sim", "waterbirds-sim", "mlp:390,390", false, "linear"},
		{"celeba-sim", "celeba-sim", "mlp:390,390", false, "linear"},
		{"cmnist keeps the MLP", "cmnist", "mlp:390,390", false, "mlp:390,390"},
		{"--model given on embeddings", "waterbirds-sim", "mlp:64", true, "mlp:64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig(c.dataset)
			cfg.Settings.Model = c.model
			set := map[string]bool{"dataset": true, "model": c.set}
			got, err := Resolve(cfg, set, "")
			if err != nil {
				t.Fatal(err)
			}
			if got.Settings.Model != c.want || got.Eval.Model != c.want {
				t.Errorf("search model %s, evaluation model %s; want %s", got.Settings.Model, got.Eval.Model, c.want)
			}
		})
	}
}
