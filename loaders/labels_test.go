package loaders

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFeaturesLabelsChecked: labels must be 0..K-1 with every class in
// the training split, and the splits must be able to train and select a
// model; what is not is refused before anything runs, naming the file,
// what was expected and what to do.
func TestFeaturesLabelsChecked(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, csv, want string }{
		{"labels 1 and 2", "f,label,split\n1,1,train\n2,2,train\n3,1,val\n4,2,test\n", "class 0"},
		{"one row per split, label 7", "f,label,split\n1,7,train\n2,7,val\n3,7,test\n", "class 0"},
		{"a gap in the labels", "f,label,split\n1,0,train\n2,2,train\n3,0,val\n4,2,test\n", "class 1"},
		{"test class absent from training", "f,label,split\n1,0,train\n2,1,train\n3,0,val\n4,2,test\n", "class 2"},
		{"named class absent from training", "f,label,split\n1,cat,train\n2,cat,train\n3,dog,val\n4,cat,test\n", `class 1 ("dog")`},
		{"one training row", "f,label,split\n1,0,train\n3,1,val\n4,0,test\n", "class 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultFeatures()
			cfg.CSV = writeFile(t, filepath.Join(dir, "bad.csv"), c.csv)
			_, err := Features(cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.csv") || !strings.Contains(err.Error(), "0..K-1") {
				t.Errorf("error %v, want one naming bad.csv, 0..K-1 and %q", err, c.want)
			}
		})
	}
	// Without validation rows the error says how to get them.
	cfg := DefaultFeatures()
	cfg.CSV = writeFile(t, filepath.Join(dir, "noval.csv"), "f,label,split\n1,0,train\n2,1,train\n4,0,test\n")
	if _, err := Features(cfg); err == nil || !strings.Contains(err.Error(), "no val rows") || !strings.Contains(err.Error(), "--val-fraction") {
		t.Errorf("no val rows: %v, want it to offer --val-fraction", err)
	}
}

// TestFeaturesValFraction: --val-fraction carves a seeded validation split
// out of the training rows, per group, for a CSV without val rows.
func TestFeaturesValFraction(t *testing.T) {
	dir := t.TempDir()
	csv := "id,f,label,split\n"
	for i := 0; i < 100; i++ {
		split := "train"
		if i >= 80 {
			split = "test"
		}
		csv += fmt.Sprintf("%d,%d,%d,%s\n", i, i, i%2, split)
	}
	cfg := DefaultFeatures()
	cfg.CSV = writeFile(t, filepath.Join(dir, "tt.csv"), csv)
	cfg.ValFraction, cfg.Seed = 0.25, 1
	s, err := Features(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.N != 60 || s.Val.N != 20 || s.Test.N != 20 {
		t.Fatalf("sizes %d/%d/%d, want 60/20/20", s.Train.N, s.Val.N, s.Test.N)
	}
	for _, d := range []*Dataset{s.Train, s.Val} {
		ones := 0
		for i, y := range d.Y {
			ones += int(y)
			if d.X[i] != float32(d.ID[i]) || int64(y) != d.ID[i]%2 {
				t.Errorf("%s row %d: id %d x %v y %d: a row's features and labels were parted", d.Name, i, d.ID[i], d.X[i], y)
			}
		}
		if 2*ones != d.N {
			t.Errorf("%s: %d of %d rows of class 1, want half (per-group carving)", d.Name, ones, d.N)
		}
	}
	again, _ := Features(cfg)
	cfg.Seed = 2
	other, _ := Features(cfg)
	if !slices.Equal(again.Val.ID, s.Val.ID) || slices.Equal(other.Val.ID, s.Val.ID) {
		t.Errorf("validation ids %v, again %v, seed 2 %v: want the same for a seed, others for another", s.Val.ID, again.Val.ID, other.Val.ID)
	}
	// A file with its own val rows keeps them: the flag is refused.
	cfg.CSV = writeFile(t, filepath.Join(dir, "good.csv"), goodCSV)
	if _, err := Features(cfg); err == nil || !strings.Contains(err.Error(), "--val-fraction") || !strings.Contains(err.Error(), "val rows") {
		t.Errorf("--val-fraction on a file with val rows: %v", err)
	}
	// A fraction that leaves no row is refused.
	cfg.CSV, cfg.ValFraction = filepath.Join(dir, "tt.csv"), 0.001
	if _, err := Features(cfg); err == nil || !strings.Contains(err.Error(), "--val-fraction 0.001") {
		t.Errorf("--val-fraction 0.001 of 80 rows: %v", err)
	}
	// So is one that leaves a group without a validation row (its 75
	// rows of class 0 get one, the 5 of class 1 none): validation, which
	// selects on the worst group, would never see it.
	skew := "id,f,label,split\n"
	for i := 0; i < 100; i++ {
		split, y := "train", 0
		if i >= 80 {
			split = "test"
		}
		if i%16 == 0 || i >= 80 && i%2 == 1 {
			y = 1
		}
		skew += fmt.Sprintf("%d,%d,%d,%s\n", i, i, y, split)
	}
	cfg.CSV, cfg.ValFraction = writeFile(t, filepath.Join(dir, "skew.csv"), skew), 0.02
	if _, err := Features(cfg); err == nil || !strings.Contains(err.Error(), "leaves group 1 with no validation row") {
		t.Errorf("--val-fraction 0.02 with a group of 5 rows: %v", err)
	}
	cfg.Lenient = true // a run recorded before the check reads as it did
	if _, err := Features(cfg); err != nil {
		t.Errorf("leniently: %v", err)
	}
}

func TestSpecCheckValFraction(t *testing.T) {
	for _, c := range []struct {
		name string
		spec Spec
		want string
	}{
		{"off", Spec{Name: "features", CSV: "x.csv"}, ""},
		{"a quarter", Spec{Name: "features", CSV: "x.csv", ValFraction: 0.25}, ""},
		{"one", Spec{Name: "features", CSV: "x.csv", ValFraction: 1}, "--val-fraction 1"},
		{"negative", Spec{Name: "features", CSV: "x.csv", ValFraction: -0.1}, "--val-fraction -0.1"},
		{"other dataset", Spec{Name: "synthetic", ValFraction: 0.2}, "--dataset features"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.spec.Check()
			if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
				t.Errorf("Check: %v, want %q", err, c.want)
			}
		})
	}
}
