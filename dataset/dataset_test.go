package dataset

import (
	"math"
	"strings"
	"testing"
)

func tiny() *Dataset {
	return &Dataset{Name: "t", N: 3, D: 2, Shape: Shape{C: 1, H: 1, W: 2}, Classes: 2, EnvNames: []string{"e"}, GroupNames: []string{"g0", "g1"},
		X: []float32{1, 2, 3, 4, 5, 6}, Y: []int32{0, 1, 1}, Env: []int32{0, 0, 0}, Group: []int32{0, 1, 1}, Attr: []int32{0, 1, 0}, ID: []int64{7, 8, 9}}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(*Dataset)
		want  string
	}{
		{"valid", func(*Dataset) {}, ""},
		{"label out of range", func(d *Dataset) { d.Y[2] = 2 }, "label 2 out of range [0,2)"},
		{"group out of range", func(d *Dataset) { d.Group[0] = -1 }, "group -1 out of range"},
		{"shape", func(d *Dataset) { d.Shape.W = 3 }, "does not match dimension 2"},
		{"feature count", func(d *Dataset) { d.X = d.X[:5] }, "5 features for 3 samples"},
		{"ids", func(d *Dataset) { d.ID = d.ID[:2] }, "2 ids for 3 samples"},
		{"NaN feature", func(d *Dataset) { d.X[3] = float32(math.NaN()) }, "sample 1 (id 8) feature 1 is NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tiny()
			tc.spoil(d)
			err := d.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestSubset(t *testing.T) {
	d := tiny()
	d.CleanY = []int32{0, 0, 1}
	s := d.Subset("s", []int{2, 0})
	if s.N != 2 || s.Row(0)[0] != 5 || s.Row(1)[1] != 2 || s.Y[0] != 1 || s.ID[0] != 9 || s.CleanY[1] != 0 || s.Attr[1] != 0 {
		t.Fatalf("subset %+v", s)
	}
	s.X[0] = 42
	if d.X[4] == 42 {
		t.Fatal("a subset shares its rows with the dataset")
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}
