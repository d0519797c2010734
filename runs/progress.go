package runs

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// ProgressPrefix begins the line a training (a baseline's, a search's
// final evaluation) writes into log.txt every tenth of its steps.
const ProgressPrefix = "training step "

// LastProgress returns the last progress line (ProgressPrefix) in the
// log of the run in dir, "" when it has none (yet) or no log.
func LastProgress(dir string) string {
	f, err := os.Open(filepath.Join(dir, LogFile))
	if err != nil {
		return ""
	}
	defer f.Close()
	const tail = 64 << 10 // the lines since the last progress line are few
	if st, err := f.Stat(); err == nil && st.Size() > tail {
		f.Seek(st.Size()-tail, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(string(b), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], ProgressPrefix) {
			return lines[i]
		}
	}
	return ""
}

// TrainStep is where a training stands, read from a progress line: its
// step of its steps, and for the stages some baselines train before the
// one they select on validation (mrm, jtt), the stage and the stages.
type TrainStep struct {
	Step   int `json:"step"`
	Steps  int `json:"steps"`
	Stage  int `json:"stage,omitempty"`  // 0 in the validated training
	Stages int `json:"stages,omitempty"` // 0 in the validated training
	// Check: the line is a validation check's, with its validation and
	// test worst-group accuracy.
	Check     bool    `json:"-"`
	ValWorst  float64 `json:"-"`
	TestWorst float64 `json:"-"`
}

// ParseProgress reads a progress line ("training step 200/501: val ..."
// or "training step 200/501, stage 1 of 3 (...)").
func ParseProgress(line string) (TrainStep, bool) {
	var st TrainStep
	rest, ok := strings.CutPrefix(line, ProgressPrefix)
	if !ok {
		return st, false
	}
	if n, _ := fmt.Sscanf(rest, "%d/%d", &st.Step, &st.Steps); n != 2 {
		return st, false
	}
	if _, after, ok := strings.Cut(rest, ", stage "); ok {
		if n, _ := fmt.Sscanf(after, "%d of %d", &st.Stage, &st.Stages); n != 2 {
			st.Stage, st.Stages = 0, 0
		}
	}
	if _, after, ok := strings.Cut(rest, ": val worst-group "); ok {
		n, _ := fmt.Sscanf(after, "%g  (test worst-group %g)", &st.ValWorst, &st.TestWorst)
		st.Check = n == 2
	}
	return st, true
}

// ReadProgress returns the progress lines of the run in dir's log.txt,
// read (ParseProgress), of its latest training: a baseline that runs
// again from the start after a stop begins a new one (its step goes
// back). Nil without a log.
func ReadProgress(dir string) []TrainStep {
	b, err := os.ReadFile(filepath.Join(dir, LogFile))
	if err != nil {
		return nil
	}
	var out []TrainStep
	for _, line := range strings.Split(string(b), "\n") {
		st, ok := ParseProgress(line)
		if !ok {
			continue
		}
		if n := len(out); n > 0 && (st.order() < out[n-1].order() || st.order() == out[n-1].order() && st.Step < out[n-1].Step) {
			out = out[:0] // started again
		}
		out = append(out, st)
	}
	return out
}

// order is the stage's place in its training: the earlier stages by
// number, the validated training after them.
func (st TrainStep) order() int {
	if st.Stages > 0 {
		return st.Stage
	}
	return math.MaxInt
}

// String is the step as the listings print it: "step 200/501", or
// "stage 1/3, 200/501" in a stage before the validated training.
func (st TrainStep) String() string {
	if st.Stages > 0 {
		return fmt.Sprintf("stage %d/%d, %d/%d", st.Stage, st.Stages, st.Step, st.Steps)
	}
	return fmt.Sprintf("step %d/%d", st.Step, st.Steps)
}
