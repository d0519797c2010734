package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/term"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/train"
)

// IO are the terminal streams; nil fields mean the process's own.
type IO struct {
	In  io.Reader
	Out io.Writer
}

// options are every program's: the caller's context (the process's one
// signal handler cancels it, see session.Interrupts), no signal handler of
// bubbletea's own, at most 10 frames a second.
func options(ctx context.Context, tio IO) []tea.ProgramOption {
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(10), tea.WithoutSignalHandler()}
	if tio.In != nil {
		opts = append(opts, tea.WithInput(tio.In))
	}
	if tio.Out != nil {
		opts = append(opts, tea.WithOutput(tio.Out))
	}
	return opts
}

// live runs a model with a feed of external messages (a search's
// snapshots and events, its end): one Cmd at a time waits for the feed's
// next message and is re-armed after the model has taken it, as in
// bubbletea's examples/realtime. next returns nil once the feed is over.
type live struct {
	tea.Model
	next func() tea.Msg
}

// feedMsg carries one message of a live model's feed.
type feedMsg struct{ msg tea.Msg }

func (l live) wait() tea.Cmd {
	return func() tea.Msg {
		if m := l.next(); m != nil {
			return feedMsg{m}
		}
		return nil
	}
}

func (l live) Init() tea.Cmd { return tea.Batch(l.Model.Init(), l.wait()) }

func (l live) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	f, fed := msg.(feedMsg)
	if fed {
		msg = f.msg
	}
	m, cmd := l.Model.Update(msg)
	l.Model = m
	if fed {
		cmd = tea.Batch(cmd, l.wait())
	}
	return l, cmd
}

// hubFeed is the feed of a hub's subscription: its snapshots and events,
// the final training's progress (from prog), and the search's end once
// (from end), until stop closes.
func hubFeed(sub *session.Sub, prog <-chan EvalProgressMsg, end <-chan EndMsg, stop <-chan struct{}) func() tea.Msg {
	return func() tea.Msg {
		select {
		case <-stop:
			return nil
		case s := <-sub.Snap:
			return SnapshotMsg{Snap: s}
		case e := <-sub.Events:
			return EventMsg{Event: e}
		case p := <-prog:
			return p
		case m := <-end: // sent once: later waits block on the other cases
			return m
		}
	}
}

// clientFeed is the feed of a socket client: the search's history, then
// its snapshots and events, and how the run ended once the socket closes.
func clientFeed(cl *session.Client, dir string) func() tea.Msg {
	ended := false // read and written by one waiting Cmd at a time
	return func() tea.Msg {
		if ended {
			return nil
		}
		for m := range cl.Msgs {
			switch m.Kind {
			case session.MsgHello:
				return HistoryMsg{Config: m.Config, Snaps: m.History, Events: m.Events}
			case session.MsgSnapshot:
				return SnapshotMsg{Snap: m.Snapshot}
			case session.MsgEvent:
				return EventMsg{Event: *m.Event}
			}
		}
		ended = true
		return endOf(dir, endedAs(dir, time.Second))
	}
}

// endOf is how the run in dir ended, as an attached view learns it when
// the socket closes: its status, its summary, and a finished run's
// result from it (the search's process trained the final model before
// it closed the socket), which the dashboard's note shows.
func endOf(dir string, st core.Status) EndMsg {
	end := EndMsg{Status: st}
	sum, _ := runs.ReadSummary(dir)
	if st == core.StatusDone && sum != nil && sum.Result != nil {
		end.Result = &report.Outcome{Result: sum.Result, Status: sum.Status, Seconds: sum.Seconds}
	}
	if sum != nil && sum.Status == st {
		end.Summary = sum
	}
	return end
}

// RunSearch runs the search of r (on sp; nil loads it) in this process
// under the live dashboard and returns how it ended. Progress messages go
// to opt.Log. Leaving the dashboard while the search runs stops it (the
// dashboard asks first); when ctx is cancelled (a signal) the search is
// interrupted and checkpointed, and the screen closes.
func RunSearch(ctx context.Context, tio IO, r *runs.Run, sp *dataset.Splits, opt session.Options) (*runs.Summary, error) {
	type result struct {
		sum *runs.Summary
		err error
	}
	hub := session.NewHub()
	opt.Hub = hub
	opt.Watched = func() bool { return true } // the dashboard is someone
	ready := make(chan session.Control, 1)
	opt.Ready = func(c session.Control) { ready <- c }
	// The final training's progress, latest only: the training never
	// waits for the screen.
	prog := make(chan EvalProgressMsg, 1)
	tell := func(m EvalProgressMsg) {
		for {
			select {
			case prog <- m:
				return
			default:
			}
			select {
			case <-prog: // an older one nobody read yet
			default:
			}
		}
	}
	opt.Progress = func(step, steps int, valWorst, _ float64) {
		tell(EvalProgressMsg{Step: step, Steps: steps, ValWorst: valWorst})
	}
	opt.Stage = func(st train.Stage, step, steps int) {
		tell(EvalProgressMsg{Step: step, Steps: steps, Stage: st.Name, ValWorst: -1})
	}
	done := make(chan result, 1)
	go func() {
		sum, err := session.Execute(ctx, r, sp, opt)
		done <- result{sum, err}
	}()
	var ctl session.Control
	select {
	case ctl = <-ready:
	case res := <-done:
		if res.err == nil && res.sum != nil && res.sum.Status != core.StatusInterrupted {
			res.err = fmt.Errorf("run %s ended before its search started", r.Config.ID)
		}
		return res.sum, res.err
	}
	d := NewDashboard(r.Config, ctl, false)
	d.SetDir(r.Dir)
	if sp != nil {
		d.SetTrain(sp.Train) // the samples pane shows the split the search runs on
	}
	sub, hist, evs := hub.Subscribe() // the history so far, then what follows
	defer hub.Unsubscribe(sub)
	d.Update(HistoryMsg{Snaps: hist, Events: evs})
	end := make(chan EndMsg, 1)
	stop := make(chan struct{})
	p := tea.NewProgram(live{d, hubFeed(sub, prog, end, stop)}, options(ctx, tio)...)
	final := make(chan result, 1)
	go func() {
		res := <-done
		m := EndMsg{Err: res.err, Summary: res.sum}
		if res.sum != nil {
			m.Status = res.sum.Status
			if res.sum.Status == core.StatusDone {
				m.Result = report.NewOutcome(ctx, r.Config, res.sum)
			}
		}
		end <- m
		final <- res
	}()
	_, uiErr := p.Run()
	close(stop)
	select {
	case res := <-final:
		return res.sum, res.err
	default:
	}
	// The screen closed while the search runs. On a signal the engine
	// sees the cancelled context itself (interrupted); else the person
	// left: stop it (resumable). Either way it ends within an inner step.
	if ctx.Err() == nil {
		ctl.Stop()
	}
	res := <-final
	if uiErr != nil && ctx.Err() == nil && res.err == nil {
		return res.sum, uiErr
	}
	return res.sum, res.err
}

// endedAs is how the run in dir ended once its socket has closed: its
// status on disk as soon as no process holds it (waiting up to limit for
// the process to let go), else StatusUnknown.
func endedAs(dir string, limit time.Duration) core.Status {
	deadline := time.Now().Add(limit)
	for {
		if st := runs.Stat(dir).Status; !st.Live() {
			return st
		}
		if time.Now().After(deadline) {
			return core.StatusUnknown
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// RunAttached shows the dashboard of a search in another process through
// its socket client. Leaving never stops the search.
func RunAttached(ctx context.Context, tio IO, dir string, cl *session.Client) error {
	d := NewDashboard(runs.Config{}, cl, true)
	d.SetDir(dir)
	d.keysFrom = time.Now().Add(400 * time.Millisecond) // type-ahead from the browser is dropped
	_, err := tea.NewProgram(live{d, clientFeed(cl, dir)}, options(ctx, tio)...).Run()
	if ctx.Err() != nil {
		return nil // a signal: leaving an attached view is not an error
	}
	return err
}

// Run shows the browser until the person leaves or picks an action for
// the caller (attach, resume, new run). Run it again after the action:
// sort, filter and selection are kept.
func (b *Browser) Run(ctx context.Context, tio IO) (Action, error) {
	b.action, b.mode, b.replay = Action{}, modeList, nil
	_, err := tea.NewProgram(b, options(ctx, tio)...).Run()
	if ctx.Err() != nil {
		return Action{}, nil
	}
	return b.Chosen(), err
}

// Replay shows a finished (or interrupted) run read-only: its search's
// charts and events, or a baseline's result, until the person leaves.
func Replay(ctx context.Context, tio IO, dir string) error {
	in := runs.Stat(dir)
	d, detail, err := replay(dir, in.Status, 120, 40)
	if err != nil {
		return err
	}
	var m tea.Model = d
	if d == nil {
		m = &textView{text: detail}
	}
	_, err = tea.NewProgram(m, options(ctx, tio)...).Run()
	return err
}

// textView shows a text until a key is pressed.
type textView struct {
	text          string
	width, height int
}

func (v *textView) Init() tea.Cmd { return nil }
func (v *textView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case tea.WindowSizeMsg:
		v.width, v.height = m.Width, m.Height
	case tea.KeyPressMsg:
		return v, tea.Quit
	}
	return v, nil
}
func (v *textView) View() tea.View {
	return screen(fit(v.text+"\n"+styles.Dim.Render("any key leaves"), max(v.width, 1), max(v.height, 1)))
}

// Execute runs r in this process under the dashboard (a baseline under
// its live view); its progress lines go to the run's log.txt, so that
// maple logs -f, maple show and the browser follow it from another
// terminal. Without a terminal, session.Headless runs it. It returns
// how the run ended.
func Execute(ctx context.Context, r *runs.Run, sp *dataset.Splits, opt session.Options) (*runs.Summary, error) {
	opt.Lines = true
	logf, err := r.OpenLog()
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	opt.Log = logf
	if !r.Config.Searches() {
		return RunBaseline(ctx, IO{}, r, sp, opt)
	}
	return RunSearch(ctx, IO{}, r, sp, opt)
}

// Interactive reports whether standard input and output are both
// terminals: the dashboard and the browser need both (/dev/null, a pipe
// or a file is not one).
func Interactive() bool {
	return term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
}
