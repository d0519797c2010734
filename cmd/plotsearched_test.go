package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotSweepSearched: maple plot SWEEP writes searched.png (each
// searched setting against validation) for a random search over one
// rate, and says nothing of it (and writes none) for a sweep whose runs
// differ only in their seeds.
func TestPlotSweepSearched(t *testing.T) {
	runsDir := t.TempDir()
	sweep := func(args ...string) {
		t.Helper()
		var errb bytes.Buffer
		f := &Factory{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &errb, RunsDir: runsDir, Terminal: func() bool { return false }}
		c := NewCmdSweep(f, nil)
		c.SetArgs(append(args, "--datasets", "synthetic", "--methods", "maple:rex", "--outer-iters", "3", "--inner-steps", "10", "--eval-steps", "50"))
		c.SetOut(f.Out)
		c.SetErr(&errb)
		if err := c.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("sweep %v: %v\n%s", args, err, errb.String())
		}
	}
	// The weight and keep rates given: the search draws the inner rate alone.
	sweep("--name", "rates", "--seeds", "1", "--search", "random", "--trials", "2", "--weight-lr", "0.1", "--keep-lr", "1")
	sweep("--name", "seeds", "--seeds", "1,2")
	for _, tc := range []struct {
		sweep    string
		searched bool
	}{{"rates", true}, {"seeds", false}} {
		t.Run(tc.sweep, func(t *testing.T) {
			var out bytes.Buffer
			f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: runsDir, Terminal: func() bool { return false }}
			dir := t.TempDir()
			if err := plotRun(&PlotOptions{F: f, Name: tc.sweep, Out: dir}); err != nil {
				t.Fatalf("plot: %v\n%s", err, out.String())
			}
			png := filepath.Join(dir, "searched.png")
			_, err := os.Stat(png)
			if written := err == nil; written != tc.searched || strings.Contains(out.String(), png) != tc.searched {
				t.Errorf("searched.png written %v (%v), want %v; maple plot said:\n%s", written, err, tc.searched, out.String())
			}
			if !tc.searched && strings.Contains(out.String(), "searched") {
				t.Errorf("a sweep with nothing searched mentions it:\n%s", out.String())
			}
		})
	}
}
