package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/core"
)

// Steering: the dashboard's commands to the search (pause and resume,
// learning rates, checkpoint, stop), queued so that they reach it in the
// order typed, and the answers to its questions.

// commandQueue runs the dashboard's commands to the search one at a time,
// in the order they were asked: each runs as a tea.Cmd on its own
// goroutine, so two in flight at once could reach the search swapped (a
// resume before the learning-rate change typed ahead of it). queued[0]
// is running; the rest wait until its ctlMsg comes back.
type commandQueue struct {
	queued []tea.Cmd
	// asked is the last pause or resume sent that the search has not yet
	// confirmed with its event ("" when none): space toggles what the
	// user asked for, so a second press before the first takes effect
	// (it waits for the current iteration) undoes it instead of asking
	// twice.
	asked core.EventKind
}

// send queues a command to the search, run as a tea.Cmd: a socket client
// may take a moment, and the screen never waits for it. It starts when
// the ones before it have answered.
func (q *commandQueue) send(kind core.EventKind, f func() error) tea.Cmd {
	q.queued = append(q.queued, func() tea.Msg { return ctlMsg{kind: kind, err: f()} })
	if len(q.queued) > 1 {
		return nil
	}
	return q.queued[0]
}

// commandName is how a note names a command to the search: as the
// person asked it (the learning rates form's, not set_lr).
func commandName(kind core.EventKind) string {
	if kind == core.EventSetLR {
		return "new learning rates"
	}
	return string(kind)
}

// next drops the command that has answered and starts the oldest waiting
// one, if any.
func (q *commandQueue) next() tea.Cmd {
	if len(q.queued) > 0 {
		q.queued = q.queued[1:]
	}
	if len(q.queued) == 0 {
		return nil
	}
	return q.queued[0]
}

// togglePause asks for a pause, or a resume when one was asked or the
// search is paused (space toggles what the person asked for).
func (d *Dashboard) togglePause() tea.Cmd {
	switch {
	case d.ctl == nil || d.ended:
		d.note = "the search is not running"
		return nil
	case d.cmds.asked == core.EventPause || d.cmds.asked == "" && d.status == core.StatusPaused:
		d.note = "resume asked"
		d.cmds.asked = core.EventResume
		return d.cmds.send(core.EventResume, d.ctl.Resume)
	}
	d.note = "pause asked: it takes effect after the current iteration"
	d.cmds.asked = core.EventPause
	return d.cmds.send(core.EventPause, d.ctl.Pause)
}

// answer takes the key that answers "stop it (and leave)? y/n".
func (d *Dashboard) answer(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if !key.Matches(k, d.confirm.Yes) {
		d.confirmQuit = false
		d.note = ""
		return d, nil
	}
	if d.ctl == nil || d.ended {
		return d, tea.Quit
	}
	if d.status == core.StatusEvaluating {
		d.note = "the search is done; leaving as soon as the evaluation finishes"
		return d, nil // EndMsg quits
	}
	d.stopping = true
	d.note = "stopping: the run is checkpointed at its last completed iteration and can be resumed"
	return d, d.cmds.send(core.EventStop, d.ctl.Stop) // EndMsg quits
}

func (d *Dashboard) editKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	lr, done, note, cmd := d.rates.update(k)
	if note != "" {
		d.note = note
	}
	if !done {
		return d, cmd
	}
	d.editing = false
	if lr == nil {
		return d, nil
	}
	return d, d.cmds.send(core.EventSetLR, func() error { return d.ctl.SetLR(*lr) })
}
