package runs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/maple-ood/maple/core"
)

// recorder writes what the engine reports into the run directory (every
// metrics record and event appended and synced before the engine goes
// on) and passes it to the hub.
type recorder struct {
	run     *Run
	eng     *core.Engine
	metrics *os.File
	events  *os.File
	hub     *Hub
	log     io.Writer
}

// appendLine appends one JSON line and syncs; on failure it cuts the file
// back so that no partial line stays behind.
func appendLine(f *os.File, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Truncate(info.Size())
		return err
	}
	if err := f.Sync(); err != nil {
		f.Truncate(info.Size())
		return err
	}
	return nil
}

func (r *recorder) Snapshot(s *core.Snapshot) error {
	if err := appendLine(r.metrics, s); err != nil {
		return fmt.Errorf("runs: cannot append to %s (%v); the search is paused, free space or fix permissions and resume", r.run.Path(MetricsFile), err)
	}
	crashPoint("metrics", s.Iter)
	every := max(1, r.run.Config.CheckpointEvery)
	if s.Iter%every == 0 || s.Iter == s.Total {
		if err := r.run.WriteCheckpoint(r.eng.State()); err != nil {
			// The record is kept; the search pauses until the disk is fixed.
			r.eng.Pause()
			r.Event(core.Event{Kind: core.EventError, Iter: s.Iter, Error: err.Error() + "; the search is paused"})
		}
	}
	r.hub.Snapshot(s)
	if r.log != nil {
		progressLine(r.log, s)
	}
	return nil
}

func (r *recorder) Event(e core.Event) error {
	if err := appendLine(r.events, e); err != nil {
		return fmt.Errorf("runs: cannot append to %s: %v", r.run.Path(EventsFile), err)
	}
	r.hub.Event(e)
	if r.log != nil {
		msg := ""
		if e.LR != nil {
			msg = fmt.Sprintf(" weight-lr %g keep-lr %g inner-lr %g", e.LR.Weight, e.LR.Keep, e.LR.Inner)
		}
		if e.Error != "" {
			msg = ": " + e.Error
		}
		fmt.Fprintf(r.log, "event %s before iteration %d%s\n", e.Kind, e.Iter+1, msg)
	}
	return nil
}

func (r *recorder) Checkpoint(st *core.State) error { return r.run.WriteCheckpoint(st) }

// progressLine is the headless line per outer iteration.
func progressLine(w io.Writer, s *core.Snapshot) {
	eta := time.Duration(s.Elapsed / float64(max(1, s.Iter)) * float64(s.Total-s.Iter) * float64(time.Second))
	fmt.Fprintf(w, "iter %4d/%d  outer %.5f  val wg %.4f  (test wg %.4f)  |g| %.3g  elapsed %s  eta %s\n",
		s.Iter, s.Total, s.OuterRisk, s.ValWorst, s.TestWorst, s.HyperNorm,
		time.Duration(s.Elapsed*float64(time.Second)).Round(time.Second), eta.Round(time.Second))
}

// ReadMetrics reads metrics.jsonl; a damaged line (a crash mid-write) ends
// the log there, and is reported through bad.
func ReadMetrics(dir string) (snaps []*core.Snapshot, bad error) {
	return readJSONL[core.Snapshot](dir, MetricsFile)
}

// ReadEvents reads events.jsonl like ReadMetrics.
func ReadEvents(dir string) ([]core.Event, error) {
	ev, err := readJSONL[core.Event](dir, EventsFile)
	out := make([]core.Event, len(ev))
	for i, e := range ev {
		out[i] = *e
	}
	return out, err
}

func readJSONL[T any](dir, name string) ([]*T, error) {
	f, err := os.Open(dir + "/" + name)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	var out []*T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		v := new(T)
		if err := json.Unmarshal(sc.Bytes(), v); err != nil {
			return out, fmt.Errorf("runs: %s/%s line %d is damaged (%v); the log is read up to it", dir, name, line, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// truncateMetrics rewrites metrics.jsonl keeping only iterations <= iter.
func truncateMetrics(r *Run, iter int) ([]*core.Snapshot, error) {
	snaps, damaged := ReadMetrics(r.Dir)
	var keep []*core.Snapshot
	for _, s := range snaps {
		if s.Iter <= iter && (len(keep) == 0 || s.Iter == keep[len(keep)-1].Iter+1) {
			keep = append(keep, s)
		}
	}
	if damaged == nil && len(keep) == len(snaps) {
		return keep, nil // nothing to drop
	}
	err := writeAtomic(r.Path(MetricsFile), func(f *os.File) error {
		w := bufio.NewWriter(f)
		for _, s := range keep {
			b, _ := json.Marshal(s)
			w.Write(append(b, '\n'))
		}
		return w.Flush()
	})
	return keep, err
}
