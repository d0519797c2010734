package runs

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
)

// TestFullDiskPauses writes the metrics log to /dev/full, where every
// write fails with ENOSPC: the search must pause with a clear message,
// keep its state and lose no record once the disk is back.
func TestFullDiskPauses(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	r, err := Open(t.TempDir()).Create(Config{Method: "maple", CheckpointEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sp, _ := loaders.Synthetic(loaders.DefaultSynthetic())
	set := core.DefaultSettings()
	set.Model, set.OuterIters, set.InnerSteps = "linear", 6, 5
	eng, err := core.New(sp, set)
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	fr := &Recorder{run: r, state: eng.State, metrics: full}
	fr.events, _ = os.OpenFile(r.Path(EventsFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	defer fr.events.Close()
	rec := Tee(fr, Printer{&log})
	eng.Watched = func() bool { return true }
	done := make(chan core.Status)
	go func() { st, _ := eng.Run(context.Background(), rec); done <- st }()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(log.String(), "event error") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(log.String(), "no space left") || !strings.Contains(log.String(), "the search is paused") {
		t.Fatalf("no clear message about the full disk:\n%s", log.String())
	}
	if _, err := os.Stat(r.Path(CheckpointFile)); err == nil {
		t.Error("a checkpoint was written for an iteration that could not be recorded")
	}
	// The disk is back: the same record is written, nothing is lost.
	good, _ := os.OpenFile(r.Path(MetricsFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	defer good.Close()
	fr.metrics = good
	eng.Resume()
	if st := <-done; st != core.StatusDone {
		t.Fatalf("status %s", st)
	}
	snaps, err := ReadMetrics(r.Dir)
	if err != nil || len(snaps) != 6 || snaps[0].Iter != 1 || snaps[5].Iter != 6 {
		t.Errorf("metrics after recovery: %d records, %v", len(snaps), err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
