package tui

import (
	"context"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/runs"
)

// IO are the terminal streams; nil fields mean the process's own.
type IO struct {
	In  io.Reader
	Out io.Writer
}

func options(ctx context.Context, tio IO) []tea.ProgramOption {
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(10)}
	if tio.In != nil {
		opts = append(opts, tea.WithInput(tio.In))
	}
	if tio.Out != nil {
		opts = append(opts, tea.WithOutput(tio.Out))
	}
	return opts
}

// RunLocal shows the dashboard of a search that runs in this process:
// it follows hub and steers through ctl. end delivers the search's end.
// Leaving asks first, since it stops the search.
func RunLocal(ctx context.Context, tio IO, dir string, cfg runs.Config, hub *runs.Hub, ctl runs.Control, end <-chan EndMsg) error {
	d := NewDashboard(cfg, ctl, false)
	d.SetDir(dir)
	sub, hist, evs := hub.Subscribe()
	defer hub.Unsubscribe(sub)
	d.Update(HistoryMsg{Snaps: hist, Events: evs})
	p := tea.NewProgram(d, options(ctx, tio)...)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case s := <-sub.Snap:
				p.Send(SnapshotMsg{Snap: s})
			case e := <-sub.Events:
				p.Send(EventMsg{Event: e})
			case m := <-end:
				p.Send(m)
				end = nil
			}
		}
	}()
	_, err := p.Run()
	return err
}

// RunAttached shows the dashboard of a search in another process through
// its socket client. Leaving never stops the search.
func RunAttached(ctx context.Context, tio IO, dir string, cl *runs.Client) error {
	d := NewDashboard(runs.Config{}, cl, true)
	d.SetDir(dir)
	p := tea.NewProgram(d, options(ctx, tio)...)
	go func() {
		for m := range cl.Msgs {
			switch m.Kind {
			case "hello":
				p.Send(HistoryMsg{Config: m.Config, Snaps: m.History, Events: m.Events})
			case "snapshot":
				p.Send(SnapshotMsg{Snap: m.Snapshot})
			case "event":
				p.Send(EventMsg{Event: *m.Event})
			}
		}
		p.Send(EndMsg{Status: "ended"})
	}()
	_, err := p.Run()
	return err
}

// Browse runs the runs browser on dir until the person leaves or picks
// an action for the caller (attach, resume, new run).
func Browse(ctx context.Context, tio IO, dir string) (Action, error) {
	b := NewBrowser(dir)
	_, err := tea.NewProgram(b, options(ctx, tio)...).Run()
	return b.Chosen(), err
}
