package session

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/export"
	"github.com/maple-ood/maple/runs"
)

// TestDetachedBaselineListens: a baseline started with --detach listens
// on its socket once maple run returns, so that maple stop right after it
// finds the run (it failed with "no live search ... sock: no such file"
// when the child said it was ready before it had loaded its data).
func TestDetachedBaselineListens(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	out, err := exec.Command(maple(t), "run", "--dataset", "synthetic", "--method", "erm", "--eval-steps", "1000000", "--detach", "--runs-dir", dir).Output()
	if err != nil {
		t.Fatalf("maple run --detach: %v\n%s", err, out)
	}
	id := strings.TrimSpace(strings.Split(string(out), "\n")[0])
	rd := filepath.Join(dir, id)
	t.Cleanup(func() { killHolder(rd) })
	_, serr := os.Lstat(filepath.Join(rd, runs.SocketFile))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	in, err := StopRun(ctx, rd)
	if serr != nil {
		t.Errorf("no socket once maple run --detach returned: %v", serr)
	}
	if err != nil || in.Status != core.StatusStopped {
		t.Fatalf("StopRun: %v, status %s", err, in.Status)
	}
}

// killHolder kills the process that holds the run in rd, if any (a
// detached child a failed test left running).
func killHolder(rd string) {
	if !runs.Held(rd) {
		return
	}
	b, _ := os.ReadFile(filepath.Join(rd, runs.LockFile))
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
}

// stopTestRun creates a run, held by this process as a running one's is.
func stopTestRun(t *testing.T) *runs.Run {
	t.Helper()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Method = "erm"
	r, err := runs.Open(t.TempDir()).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// summaryOnStop is a Control whose Stop ends the search as a process
// with a dashboard open does: it writes the stopped summary and keeps
// holding the run (the dashboard stays open until its person leaves).
type summaryOnStop struct {
	fakeCtl
	r *runs.Run
}

func (c *summaryOnStop) Stop() error {
	c.fakeCtl.Stop()
	return c.r.WriteSummary(&runs.Summary{Status: core.StatusStopped, Finished: time.Now(), BestValWorst: -1})
}

// TestStopRunStates: maple stop waits for states, never for a time: a
// run held by a process whose socket does not listen yet (loading its
// data) is stopped once it listens; a run whose process stays open after
// its search ended (a dashboard in another terminal) is stopped once its
// summary says so, though the process keeps the run. Each case had to
// wait out its whole timeout (or failed at once) before.
func TestStopRunStates(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(t *testing.T, r *runs.Run) // before StopRun (nil: none)
		late  func(t *testing.T, r *runs.Run) // once StopRun found no socket
	}{
		{
			name: "the socket listens after the stop was asked",
			late: func(t *testing.T, r *runs.Run) {
				srv, err := Serve(r, NewHub(), &summaryOnStop{r: r})
				if err != nil {
					t.Error(err)
					return
				}
				t.Cleanup(func() { srv.Close() })
			},
		},
		{
			name: "the process stays open after the search ended",
			start: func(t *testing.T, r *runs.Run) {
				srv, err := Serve(r, NewHub(), &summaryOnStop{r: r})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { srv.Close() })
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stopTestRun(t)
			if tc.start != nil {
				tc.start(t, r)
			}
			var once sync.Once
			noSocketHook = func() {
				once.Do(func() {
					if tc.late != nil {
						tc.late(t, r)
					}
				})
			}
			t.Cleanup(func() { noSocketHook = nil })
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			in, err := StopRun(ctx, r.Dir)
			if err != nil || in.Status != core.StatusStopped {
				t.Fatalf("StopRun: %v, status %s; want stopped", err, in.Status)
			}
			if ctx.Err() != nil {
				t.Error("StopRun waited out its whole time")
			}
		})
	}
}

// TestFullDiskAfterTheSearch: a disk that fills while the exports are
// written after the search (weights.csv) ends the run failed with the
// command that continues it; maple resume then finishes it without
// searching again. It ended with the error alone: no summary to tell
// what to do.
func TestFullDiskAfterTheSearch(t *testing.T) {
	runsDir := t.TempDir()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Settings.OuterIters, cfg.Settings.InnerSteps, cfg.Eval.Steps, cfg.CheckpointEvery = 3, 5, 10, 2
	r, err := runs.Open(runsDir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeExports = func(dir string, cfg *runs.Config, status core.Status, iter int, out *core.Output, train *dataset.Dataset, formats ...string) error {
		return &runs.WriteError{Path: filepath.Join(dir, runs.WeightsCSV), Err: syscall.ENOSPC}
	}
	t.Cleanup(func() { writeExports = export.WriteExports })
	sum, err := Execute(context.Background(), r, nil, Options{})
	r.Close()
	if err == nil || sum == nil || sum.Status != core.StatusFailed {
		t.Fatalf("Execute: %+v, %v; want a failed summary and the error", sum, err)
	}
	msg := runs.Open(runsDir).Continue(sum, r.Config)
	if !strings.Contains(msg, "the disk is full") || !strings.Contains(msg, "maple resume "+r.Config.ID) {
		t.Errorf("what the person is told:\n%s", msg)
	}
	writeExports = export.WriteExports // the disk is back
	r2, _, _, err := Reopen(runs.Open(runsDir), r.Config.ID, runs.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	os.Remove(r2.Path(runs.SummaryFile)) // as maple resume does
	var log strings.Builder
	sum, err = Execute(context.Background(), r2, nil, Options{Log: &log, Lines: true})
	if err != nil || sum.Status != core.StatusDone {
		t.Fatalf("resume: %+v %v\n%s", sum, err, log.String())
	}
	if strings.Contains(log.String(), "iter ") {
		t.Errorf("the resumed run searched again:\n%s", log.String())
	}
}
