package tui

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/train"
	"github.com/maple-ood/maple/tui/chart"
)

// baselineLive is what a baseline's training has told so far: written by
// the training's goroutine (its Progress and Stage hooks, which must not
// block: a mutex held for a copy), read by the view at each tick.
type baselineLive struct {
	mu          sync.Mutex
	stage       train.Stage        // the stage under way; N 0: the validated training
	stages      int                // the stages in all, once an earlier stage has told them
	step, steps int                // its step and steps (0 before the first)
	curve       []train.CheckPoint // the validated training's checks so far
	ended       bool               // the run has ended (session.Execute returned)
}

func (l *baselineLive) onStage(st train.Stage, step, steps int) {
	l.mu.Lock()
	l.stage, l.stages, l.step, l.steps = st, st.Of, step, steps
	l.mu.Unlock()
}

func (l *baselineLive) onCheck(step, steps int, valWorst, testWorst float64) {
	l.mu.Lock()
	l.stage, l.step, l.steps = train.Stage{}, step, steps
	l.curve = append(l.curve, train.CheckPoint{Step: step, ValWorst: valWorst, TestWorst: testWorst})
	l.mu.Unlock()
}

func (l *baselineLive) end() {
	l.mu.Lock()
	l.ended = true
	l.mu.Unlock()
}

// hasEnded tells whether the run has ended, without copying the curve.
func (l *baselineLive) hasEnded() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

// baselineState is a copy of baselineLive for one frame.
type baselineState struct {
	stage       train.Stage
	stages      int
	step, steps int
	curve       []train.CheckPoint
	ended       bool
}

func (l *baselineLive) state() baselineState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return baselineState{l.stage, l.stages, l.step, l.steps, append([]train.CheckPoint(nil), l.curve...), l.ended}
}

// baselineTick redraws a baseline's live view (re-armed, as bubbletea's
// examples/realtime does with its Cmds).
type baselineTick struct{}

// baselineStopped is the answer of the run's socket to a stop.
type baselineStopped struct{ err error }

// baselineRead carries a followed run's state, read from its log.
type baselineRead struct{ st baselineState }

// readBaseline reads the state of the baseline running in dir from its
// log's progress lines (runs.ReadProgress) and its status.
func readBaseline(dir string) baselineState {
	var st baselineState
	for _, p := range runs.ReadProgress(dir) {
		st.stage, st.step, st.steps = train.Stage{N: p.Stage, Of: p.Stages}, p.Step, p.Steps
		st.stages = max(st.stages, p.Stages)
		if p.Check {
			st.curve = append(st.curve, train.CheckPoint{Step: p.Step, ValWorst: p.ValWorst, TestWorst: p.TestWorst})
		}
	}
	st.ended = !runs.Held(dir) // a baseline is live while its process holds it
	return st
}

// BaselineView is a running baseline's live view: its recipe, the step
// of the stage under way, and the curve of its validation checks so far.
// A baseline has no search to pause or steer: the view can only stop it
// (through its socket, as maple stop does), and closes when it ends.
type BaselineView struct {
	cfg      runs.Config
	dir      string
	live     *baselineLive
	cancel   context.CancelFunc // ends the run as interrupted when its socket cannot stop it (nil: a run of another process)
	follow   bool               // the run is another process's: its state is read from its log
	followed baselineState      // what was read last (follow)
	start    time.Time
	now      func() time.Time
	width    int
	height   int
	confirm  bool   // x or q asked whether to stop
	stopping bool   // y answered: stopping
	note     string // a line under the header
	keys     baselineKeys
	help     help.Model
	charts   chart.Model // the curve of the validation checks, in the chart component
}

func newBaselineView(cfg runs.Config, dir string, live *baselineLive, cancel context.CancelFunc) *BaselineView {
	v := &BaselineView{cfg: cfg, dir: dir, live: live, cancel: cancel, start: time.Now(), now: time.Now,
		width: 80, height: 24, keys: newBaselineKeys(), help: help.New(), charts: chart.New()}
	// The test line dotted, as in maple plot's figure, so that the two
	// stay apart without colour (NO_COLOR).
	v.charts.Unit, v.charts.Chars = "training step", true
	return v
}

func tickBaseline() tea.Cmd {
	return tea.Tick(250*time.Millisecond, func(time.Time) tea.Msg { return baselineTick{} })
}

// Init implements tea.Model.
func (v *BaselineView) Init() tea.Cmd { return tickBaseline() }

// Update implements tea.Model.
func (v *BaselineView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case tea.WindowSizeMsg:
		v.width, v.height = m.Width, m.Height
	case baselineTick:
		if v.follow {
			dir := v.dir
			return v, func() tea.Msg { return baselineRead{readBaseline(dir)} }
		}
		if v.live.hasEnded() {
			return v, tea.Quit
		}
		return v, tickBaseline()
	case baselineRead:
		if v.followed = m.st; m.st.ended {
			return v, tea.Quit
		}
		return v, tickBaseline()
	case baselineStopped:
		switch {
		case m.err != nil && v.cancel != nil: // no socket yet (the data still loading): end it as a signal would
			v.cancel()
		case m.err != nil:
			v.stopping, v.note = false, "stop: "+m.err.Error()
		}
	case tea.KeyPressMsg:
		if msg := chart.KeyMsg(v.keys.KeyMap, m); msg != nil && !v.confirm {
			return v, v.charts.Update(msg)
		}
		switch {
		case v.stopping:
		case key.Matches(m, v.keys.Quit) && v.follow:
			return v, tea.Quit // another process's run: leave it running
		case key.Matches(m, v.keys.Quit):
			return v, v.stop()
		case v.confirm:
			v.confirm = false
			if m.String() == "y" {
				return v, v.stop()
			}
			v.note = "not stopped"
		case key.Matches(m, v.keys.Stop):
			v.confirm = true
			v.note = fmt.Sprintf("stop %s? a baseline keeps no checkpoint: maple resume trains it again from the start. y/n", v.cfg.ID)
		}
	}
	return v, nil
}

// stop asks the run's socket to stop it, in a tea.Cmd; the view closes
// when the training has ended.
func (v *BaselineView) stop() tea.Cmd {
	v.stopping, v.confirm = true, false
	v.note = "stopping " + v.cfg.ID + " (within a training step)..."
	dir := v.dir
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := session.StopRun(ctx, dir)
		return baselineStopped{err}
	}
}

// View implements tea.Model.
func (v *BaselineView) View() tea.View { return screen(v.Render()) }

// Render draws the view at its size.
func (v *BaselineView) Render() string {
	w, h := max(v.width, 20), max(v.height, 6)
	st := v.followed
	if !v.follow {
		st = v.live.state()
	}
	c, e := v.cfg, v.cfg.Eval
	var sb strings.Builder
	status := "running"
	if v.stopping {
		status = "stopping"
	}
	fmt.Fprintf(&sb, "%s %s  %s  %s  model %s  seed %d  %s\n", styles.Title.Render("maple"), c.ID, c.Dataset.Name, c.Method, e.Model, c.Settings.Seed, status)
	if e.Recipe != "" {
		fmt.Fprintf(&sb, "recipe: %s\n", e.Recipe)
	}
	elapsed := v.now().Sub(v.start).Seconds()
	switch {
	case st.steps == 0 && v.follow:
		fmt.Fprintf(&sb, "no progress line in its log yet  elapsed %s\n", fmtDur(elapsed))
	case st.steps == 0:
		fmt.Fprintf(&sb, "starting (the data loads, then the training)  elapsed %s\n", fmtDur(elapsed))
	default:
		what := "training"
		switch {
		case st.stage.Of > 0:
			what = fmt.Sprintf("stage %d of %d (%s)", st.stage.N, st.stage.Of, st.stage.Name)
		case st.stages > 0: // past the earlier stages
			what = fmt.Sprintf("stage %d of %d (the training selected on validation)", st.stages, st.stages)
		}
		frac := float64(st.step) / float64(st.steps)
		barW := max(10, min(60, w-40))
		filled := int(math.Round(frac * float64(barW)))
		bar := strings.Repeat("█", filled) + styles.Dim.Render(strings.Repeat("░", barW-filled))
		fmt.Fprintf(&sb, "%s\nstep %d/%d %s %3.0f%%  elapsed %s\n", what, st.step, st.steps, bar, 100*frac, fmtDur(elapsed))
	}
	if n := len(st.curve); n > 0 {
		last := st.curve[n-1]
		best := st.curve[0]
		for _, cp := range st.curve {
			if cp.ValWorst > best.ValWorst {
				best = cp
			}
		}
		of := "so far"
		if v.follow {
			of = "among the logged checks" // the log has every tenth of the steps
		}
		fmt.Fprintf(&sb, "last check: step %d, val worst-group %.4f (test %.4f); best on validation %s: step %d, %.4f\n",
			last.Step, last.ValWorst, last.TestWorst, of, best.Step, best.ValWorst)
	}
	if v.note != "" {
		sb.WriteString(styles.Warn.Render(v.note) + "\n")
	}
	text := ansi.Wrap(sb.String(), w, "")
	footer := shortHelp(v.help, v.keys.ShortHelp())
	if room := h - strings.Count(text, "\n") - 2; len(st.curve) >= 2 && room >= 8 {
		setCurve(&v.charts, "worst-group accuracy at the validation checks", st.curve)
		text += "\n" + strings.Join(v.charts.Render(w, min(room, 20)), "\n") + "\n"
	}
	body := fit(text, w, h-1)
	if n := strings.Count(body, "\n") + 1; n < h-1 { // the footer at the bottom
		body += strings.Repeat("\n", h-1-n)
	}
	return body + "\n" + footer
}

// AttachBaseline follows the baseline running in another process in dir
// (a detached run, a sweep's cell) in its live view, read from its log,
// until it ends or the person leaves (q: it runs on); x stops it (after
// y) through its socket.
func AttachBaseline(ctx context.Context, tio IO, dir string) error {
	cfg, err := runs.ReadConfig(dir)
	if err != nil {
		return err
	}
	_, err = tea.NewProgram(newFollowView(*cfg, dir), options(ctx, tio)...).Run()
	return err
}

// newFollowView is the live view of another process's baseline, read
// from its log in dir: q leaves it running, x stops it.
func newFollowView(cfg runs.Config, dir string) *BaselineView {
	v := newBaselineView(cfg, dir, nil, nil)
	v.follow, v.start = true, cfg.Started
	v.keys.Stop = key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "stop (asks first)"))
	v.keys.Quit = key.NewBinding(key.WithKeys("q", "esc", "ctrl+c"), key.WithHelp("q", "leave (it runs on)"))
	return v
}

// RunBaseline runs the baseline r in this process under its live view on
// the terminal (tio), its progress lines in the run's log (opt.Log); it
// returns how the run ended. Leaving the view stops the run (after y).
func RunBaseline(ctx context.Context, tio IO, r *runs.Run, sp *dataset.Splits, opt session.Options) (*runs.Summary, error) {
	type result struct {
		sum *runs.Summary
		err error
	}
	live := &baselineLive{}
	opt.Progress, opt.Stage = live.onCheck, live.onStage
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan result, 1)
	go func() {
		sum, err := session.Execute(runCtx, r, sp, opt)
		live.end()
		done <- result{sum, err}
	}()
	v := newBaselineView(r.Config, r.Dir, live, cancel)
	_, uiErr := tea.NewProgram(v, options(ctx, tio)...).Run()
	if !live.hasEnded() {
		cancel() // the screen closed another way (a signal, a terminal error): end it as a signal would
	}
	res := <-done
	if uiErr != nil && ctx.Err() == nil && res.err == nil {
		return res.sum, uiErr
	}
	return res.sum, res.err
}
