package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
)

// fakeImages is a training split of n two-channel 14x14 images (as
// ColoredMNIST's): sample i is a bar i pixels from the left, red for the
// even ones and green for the odd.
func fakeImages(n int) *dataset.Dataset {
	sh := dataset.Shape{C: 2, H: 14, W: 14}
	d := &dataset.Dataset{Name: "train", N: n, D: sh.Size(), Shape: sh, Classes: 2, X: make([]float32, n*sh.Size()),
		Y: make([]int32, n), Group: make([]int32, n), Env: make([]int32, n), Attr: make([]int32, n), ID: make([]int64, n),
		GroupNames: []string{"y=0,a=0", "y=0,a=1", "y=1,a=0", "y=1,a=1"}}
	for i := range n {
		ch := i % 2
		for y := 2; y < 12; y++ {
			for x := i % 12; x < i%12+3; x++ {
				d.Row(i)[ch*196+y*14+x] = 1
			}
		}
		d.Y[i], d.Group[i], d.ID[i] = int32(i%4/2), int32(i%4), int64(1000+i)
	}
	return d
}

// samplesScript is script's snapshots with Top and Dropped naming
// samples of fakeImages.
func samplesScript(n int) []*core.Snapshot {
	snaps := script(n, 40)
	for _, s := range snaps {
		s.Top, s.Dropped = nil, nil
		for k := range 5 {
			i := 2 * k
			s.Top = append(s.Top, core.TopSample{Index: i, ID: int64(1000 + i), Label: int32(i % 4 / 2), Group: int32(i % 4), Weight: 3 - 0.4*float64(k), Keep: 0.9, W: 3 - 0.4*float64(k)})
			j := 2*k + 1
			s.Dropped = append(s.Dropped, core.TopSample{Index: j, ID: int64(1000 + j), Label: int32(j % 4 / 2), Group: int32(j % 4), Weight: 0, Keep: 0.01 * float64(k), W: 0.2})
		}
	}
	return snaps
}

// TestSamplesPane: the third pane draws the most up-weighted and the
// most dropped training images with their label, group and figure, as
// plain characters without colour (golden screens) and as half blocks
// with both channels kept in colour; g filters by group.
func TestSamplesPane(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			d := NewDashboard(testConfig(), &fakeCtl{}, false)
			d.SetTrain(fakeImages(12))
			d.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			d.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii})
			feed(d, samplesScript(5))
			press(d, "tab", "tab")
			out := d.Render()
			for i, l := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(l); w > sz[0] {
					t.Errorf("line %d is %d wide", i, w)
				}
			}
			if strings.Contains(out, "▀") || strings.Contains(out, "\x1b[38;2") {
				t.Errorf("colour half blocks without colour:\n%s", out)
			}
			golden(t, fmt.Sprintf("samples-%dx%d", sz[0], sz[1]), out)
		})
	}
	d := NewDashboard(testConfig(), &fakeCtl{}, false)
	d.SetTrain(fakeImages(12))
	d.Update(tea.WindowSizeMsg{Width: 120, Height: 60})
	feed(d, samplesScript(5))
	press(d, "tab", "tab")
	out := d.Render()
	// Sample 1000 is red, 1001 green: the channels are kept.
	if !strings.Contains(out, "▀") || !strings.Contains(out, "38;2;255;0;0") || !strings.Contains(out, "38;2;0;255;0") {
		t.Errorf("no red and green half blocks:\n%q", out)
	}
	for _, want := range []string{"#1000 y=0", "u 3", "#1001 y=0", "s 0 w 0.2", "most dropped"} {
		if !strings.Contains(ansi.Strip(out), want) {
			t.Errorf("%q missing:\n%s", want, ansi.Strip(out))
		}
	}
	press(d, "g", "g", "g") // to group y=1,a=0: samples 2 and 6 up-weighted, none dropped
	text := ansi.Strip(d.Render())
	if !strings.Contains(text, "group: y=1,a=0") || !strings.Contains(text, "#1002") || strings.Contains(text, "#1000 ") || !strings.Contains(text, "none in this group") {
		t.Errorf("g to group y=1,a=0:\n%s", text)
	}
}

// TestSamplesTabular: rows of features are listed with their values.
func TestSamplesTabular(t *testing.T) {
	train := fakeImages(12)
	train.Shape = dataset.Shape{C: train.D, H: 1, W: 1}
	d := NewDashboard(testConfig(), &fakeCtl{}, false)
	d.SetTrain(train)
	d.Update(tea.WindowSizeMsg{Width: 80, Height: 40})
	feed(d, samplesScript(5))
	press(d, "tab", "tab")
	text := ansi.Strip(d.Render())
	if !strings.Contains(text, "features") || !strings.Contains(text, "0.00 0.00") || strings.Contains(text, "▀") {
		t.Errorf("tabular samples:\n%s", text)
	}
}

// TestSamplesFrozenWeights: with the sample weights frozen at 1 every
// kept sample's u is 1; the most up-weighted are then the kept samples
// of the highest keep probability (they were the lowest ids), and the
// pane says how it ranks. The groups pane's list says the same.
func TestSamplesFrozenWeights(t *testing.T) {
	ones := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = 1
		}
		return v
	}
	// Samples 0..7: 2 and 6 dropped (u 0); the kept ones' keep
	// probabilities rise from sample 0 to 7.
	u := []float32{1, 1, 0, 1, 1, 1, 0, 1}
	s := []float32{0.2, 0.3, 0.05, 0.5, 0.6, 0.7, 0, 0.9}
	learnt := []float32{1, 1.5, 0.5, 1, 1, 1, 1, 1}
	frozenSnap := func() []*core.Snapshot {
		snaps := samplesScript(3)
		for _, x := range snaps {
			x.WeightHist = &core.Histogram{Min: 1, Max: 1}
		}
		return snaps
	}
	cases := []struct {
		name   string
		final  *finalWeights
		snaps  []*core.Snapshot
		wantUp []int64 // ids, in order
		frozen bool    // the frozen note shown
		from   string  // also in the list's header
	}{
		{name: "exports, w frozen", final: &finalWeights{u: u, w: ones(8), s: s, iteration: 30, which: "the validation-selected iterate 7 of 30"},
			wantUp: []int64{1007, 1005, 1004, 1003, 1001}, frozen: true},
		{name: "exports, w learnt", final: &finalWeights{u: u, w: learnt, s: s, iteration: 30, which: "the validation-selected iterate 7 of 30"},
			wantUp: []int64{1007, 1005, 1004, 1003, 1001}, frozen: false},
		{name: "exports, dropped tie at s 0", final: &finalWeights{u: make([]float32, 8), w: ones(8), s: make([]float32, 8), iteration: 30, which: "the validation-selected iterate 7 of 30"},
			frozen: true, from: "8 samples tie at the largest u 0 and keep probability 0 (the up-weighted listed by id); 8 tie at the lowest keep probability 0 (the dropped listed by id)"},
		{name: "live, w frozen", snaps: frozenSnap(), frozen: true},
		{name: "live, w learnt", snaps: samplesScript(3), frozen: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &runRecord{cfg: testConfig(), ended: tc.final != nil, snaps: tc.snaps}
			p := newSamplesPane(rec, samplesKeys{})
			p.setTrain(fakeImages(8))
			p.final = tc.final
			up, _, from := p.lists()
			if tc.wantUp != nil {
				var ids []int64
				for _, e := range up {
					ids = append(ids, e.id)
				}
				if fmt.Sprint(ids) != fmt.Sprint(tc.wantUp) {
					t.Errorf("up-weighted %v, want %v", ids, tc.wantUp)
				}
			}
			if !strings.Contains(from, tc.from) {
				t.Errorf("header %q lacks %q", from, tc.from)
			}
			if got := strings.Contains(from, "w frozen at 1: u is the keep mask; ranked by keep probability"); got != tc.frozen {
				t.Errorf("frozen note %v, want %v: %q", got, tc.frozen, from)
			}
			if tc.snaps != nil {
				g := ansi.Strip(newGroupsPane(rec).content(60))
				if got := strings.Contains(g, "w frozen at 1"); got != tc.frozen {
					t.Errorf("groups pane's frozen note %v, want %v:\n%s", got, tc.frozen, g)
				}
				if !strings.Contains(g, "% of the total u") {
					t.Errorf("groups pane does not say what its percentages are:\n%s", g)
				}
			}
		})
	}
}
