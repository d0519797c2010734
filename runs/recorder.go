package runs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/maple-ood/maple/record"
)

// Recorder writes what the engine reports into the run directory: every
// metrics record and event appended and synced before the engine goes
// on, and a checkpoint every CheckpointEvery iterations. A record that
// was written but whose checkpoint failed is not written again when the
// engine retries it.
type Recorder struct {
	run     *Run
	state   func() *record.State // the engine's state, checkpointed
	metrics *os.File
	events  *os.File
	written int // the last iteration appended to metrics.jsonl
}

// OpenRecorder opens r's metrics and events files for appending, after
// iteration iter; state gives the engine's state to checkpoint.
func OpenRecorder(r *Run, state func() *record.State, iter int) (*Recorder, error) {
	fr := &Recorder{run: r, state: state, written: iter}
	var err error
	if fr.metrics, err = os.OpenFile(r.Path(MetricsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, FilePerm); err != nil {
		return nil, err
	}
	if fr.events, err = os.OpenFile(r.Path(EventsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, FilePerm); err != nil {
		fr.metrics.Close()
		return nil, err
	}
	return fr, nil
}

// Close closes the files.
func (fr *Recorder) Close() {
	fr.metrics.Close()
	fr.events.Close()
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

func (r *Recorder) Snapshot(s *record.Snapshot) error {
	if s.Iter > r.written {
		if err := appendLine(r.metrics, s); err != nil {
			return fmt.Errorf("cannot append to %s (%w); free space or fix permissions", r.run.Path(MetricsFile), err)
		}
		r.written = s.Iter
		crashPoint("metrics", s.Iter)
	}
	every := max(1, r.run.Config.CheckpointEvery)
	if s.Iter%every == 0 || s.Iter == s.Total {
		if err := r.run.WriteCheckpoint(r.state()); err != nil {
			return fmt.Errorf("the record of iteration %d is written but its checkpoint is not: %w", s.Iter, err)
		}
	}
	return nil
}

func (r *Recorder) Event(e record.Event) error {
	if err := appendLine(r.events, e); err != nil {
		return fmt.Errorf("cannot append to %s: %w", r.run.Path(EventsFile), err)
	}
	return nil
}

func (r *Recorder) Checkpoint(st *record.State) error { return r.run.WriteCheckpoint(st) }

// Printer writes one progress line per outer iteration and one per event
// (the headless output, and `maple attach --lines`): the iteration, the
// outer risk, the search model's validation (and test) worst-group
// accuracy, the share of samples kept, and the norms of the outer
// gradient in the weights w and the keep scores s before clipping. It is itself a
// record.Recorder, as gonum's optimize.Printer is a Recorder, so a run tees
// it with the file recorder.
type Printer struct {
	W io.Writer
}

// Snapshot prints the progress line of s.
func (p Printer) Snapshot(s *record.Snapshot) error {
	eta := time.Duration(s.Elapsed / float64(max(1, s.Iter)) * float64(s.Total-s.Iter) * float64(time.Second))
	fmt.Fprintf(p.W, "iter %4d/%d  outer %.4g  val worst-group %.4f  (test worst-group %.4f)  kept %.1f%%  |dR/dw| %.3g  |dR/ds| %.3g  elapsed %s  eta %s\n",
		s.Iter, s.Total, s.OuterRisk, s.ValWorst, s.TestWorst, 100*s.KeepFrac, s.HyperNorm, s.KeepNorm,
		time.Duration(s.Elapsed*float64(time.Second)).Round(time.Second), eta.Round(time.Second))
	return nil
}

// Event prints the event line of e.
func (p Printer) Event(e record.Event) error {
	fmt.Fprintf(p.W, "event %s before iteration %d%s\n", e.Kind, e.Iter+1, EventDetail(e))
	return nil
}

// Checkpoint prints nothing.
func (p Printer) Checkpoint(*record.State) error { return nil }

// EventDetail is the text after an event's kind: the new rates or the
// error.
func EventDetail(e record.Event) string {
	switch {
	case e.LR != nil:
		return fmt.Sprintf(" weight-lr %g keep-lr %g inner-lr %g", e.LR.Weight, e.LR.Keep, e.LR.Inner)
	case e.Error != "":
		return ": " + e.Error
	}
	return ""
}

// ReadMetrics reads metrics.jsonl. A damaged line (a crash mid-write,
// an edit) is skipped and reported through bad with its line number; the
// records after it are still read.
func ReadMetrics(dir string) (snaps []*record.Snapshot, bad error) {
	return readJSONL[record.Snapshot](dir, MetricsFile)
}

// ReadEvents reads events.jsonl like ReadMetrics.
func ReadEvents(dir string) ([]record.Event, error) {
	ev, err := readJSONL[record.Event](dir, EventsFile)
	out := make([]record.Event, len(ev))
	for i, e := range ev {
		out[i] = *e
	}
	return out, err
}

// jsonLine is one line of a JSON-lines file.
type jsonLine struct {
	n   int    // 1-based line number
	raw []byte // without the newline
}

func readLines(path string) ([]jsonLine, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	var out []jsonLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	n := 0
	for sc.Scan() {
		n++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		out = append(out, jsonLine{n: n, raw: append([]byte(nil), sc.Bytes()...)})
	}
	return out, sc.Err()
}

func readJSONL[T any](dir, name string) ([]*T, error) {
	path := filepath.Join(dir, name)
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	var out []*T
	var damaged []string
	for _, l := range lines {
		v := new(T)
		if err := json.Unmarshal(l.raw, v); err != nil {
			damaged = append(damaged, strconv.Itoa(l.n))
			continue
		}
		out = append(out, v)
	}
	if len(damaged) > 0 {
		return out, &DamagedLinesError{Path: path, Lines: damaged}
	}
	return out, nil
}

// DamagedLinesError is what ReadMetrics and ReadEvents return when some
// lines could not be read: the records beside it are the others, whole
// and usable.
type DamagedLinesError struct {
	Path  string
	Lines []string // line numbers
}

func (e *DamagedLinesError) Error() string {
	return fmt.Sprintf("%s: line %s damaged and skipped", e.Path, strings.Join(e.Lines, ", "))
}

// SkipDamaged returns nil when err only says that some lines were damaged
// and skipped (a *DamagedLinesError), after telling warn so; else err.
func SkipDamaged(err error, warn func(string)) error {
	var d *DamagedLinesError
	if errors.As(err, &d) {
		if warn != nil {
			warn(d.Error() + "; the other records are used")
		}
		return nil
	}
	return err
}

// DroppedMetrics is where resume moves the records it cannot keep.
const DroppedMetrics = "metrics.dropped.jsonl"

// CutMetrics makes metrics.jsonl hold exactly the records of iterations
// 1..iter, the ones the checkpoint at iter continues from. Records after
// iter (written after the checkpoint) and damaged lines are moved to
// metrics.dropped.jsonl, never deleted, and each is reported through
// warn. It returns the records kept.
func (r *Run) CutMetrics(iter int, warn func(string)) ([]*record.Snapshot, error) {
	path := r.Path(MetricsFile)
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	var keep []*record.Snapshot
	var kept, dropped [][]byte
	var damaged, after []string
	seen := map[int]bool{}
	for _, l := range lines {
		s := new(record.Snapshot)
		if err := json.Unmarshal(l.raw, s); err != nil {
			damaged = append(damaged, strconv.Itoa(l.n))
			dropped = append(dropped, l.raw)
			continue
		}
		if s.Iter > iter || s.Iter < 1 || seen[s.Iter] {
			after = append(after, strconv.Itoa(s.Iter))
			dropped = append(dropped, l.raw)
			continue
		}
		seen[s.Iter] = true
		keep = append(keep, s)
		kept = append(kept, l.raw)
	}
	if len(dropped) == 0 {
		return keep, nil
	}
	side := r.Path(DroppedMetrics)
	f, err := os.OpenFile(side, os.O_WRONLY|os.O_APPEND|os.O_CREATE, FilePerm)
	if err != nil {
		return nil, err
	}
	for _, b := range dropped {
		f.Write(append(b, '\n'))
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return nil, fmt.Errorf("cannot keep the dropped records in %s: %w", side, err)
	}
	if len(damaged) > 0 {
		warn(fmt.Sprintf("%s: line %s damaged; moved to %s", path, strings.Join(damaged, ", "), side))
	}
	if len(after) > 0 {
		warn(fmt.Sprintf("%s: records of iteration %s come after the checkpoint at %d (or repeat one); moved to %s", path, strings.Join(after, ", "), iter, side))
	}
	if len(keep) < iter {
		warn(fmt.Sprintf("%s holds %d of the %d records before the checkpoint", path, len(keep), iter))
	}
	err = writeAtomic(path, func(f *os.File) error {
		w := bufio.NewWriter(f)
		for _, b := range kept {
			w.Write(append(b, '\n'))
		}
		return w.Flush()
	})
	return keep, err
}

// WriteSummary writes s as the run's summary.json, atomically.
func (r *Run) WriteSummary(s *Summary) error { return WriteJSONAtomic(r.Path(SummaryFile), s) }

// Tee returns a Recorder that passes each report to every rec in order,
// stopping at the first error (so a record the first could not keep
// reaches none after it, and the engine's retry reaches each once).
func Tee(recs ...record.Recorder) record.Recorder { return tee(recs) }

type tee []record.Recorder

func (t tee) Snapshot(s *record.Snapshot) error {
	for _, r := range t {
		if err := r.Snapshot(s); err != nil {
			return err
		}
	}
	return nil
}

func (t tee) Event(e record.Event) error {
	for _, r := range t {
		if err := r.Event(e); err != nil {
			return err
		}
	}
	return nil
}

func (t tee) Checkpoint(st *record.State) error {
	for _, r := range t {
		if err := r.Checkpoint(st); err != nil {
			return err
		}
	}
	return nil
}
