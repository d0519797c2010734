package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// The dashboard's help page (?): its keys, then what each part of the
// screen shows, in a viewport that scrolls (pageKeys); any other key
// closes it.

// helpSections say what the screen shows: a title, and its paragraphs.
var helpSections = []struct {
	title string
	paras []string
}{
	{"what the keys do", []string{
		"space pauses and resumes between outer iterations. " +
			"l edits the weight, keep-probability and inner learning rates, applied at the next iteration after a checkpoint. " +
			"s writes a checkpoint now. " +
			"e exports the weights of the selected iterate (the one the evaluation trains on) as of the latest checkpoint. " +
			"x stops the search after y, checkpointed and resumable. " +
			"q asks before stopping a search this process runs (a second Ctrl-C stops it at once); an attached view leaves, the search runs on. " +
			"tab moves to the next pane; ↑/↓ and pgup/pgdn scroll it.",
	}},
	{"the header", []string{
		"The first line: the run id, the dataset, the method (maple/objective), the search model and the status " +
			"(running, paused, stopping, evaluating, done, stopped, interrupted or failed).",
		"iter i/T: the outer iterations done of T, with a bar. " +
			"elapsed: the search's time, pauses left out. " +
			"eta: the time left at the pace of the last five iterations; a search that has ended shows none.",
		"lr: the learning rates in force. weight is Adam's on the sample weights w (0 leaves w at 1). " +
			"keep is Adam's on the keep probabilities s. inner is the inner model's SGD.",
		"selected iterate N (val worst-group X): the iterate whose inner model has the best validation worst-group accuracy so far. " +
			"The final weighted ERM trains on its weights (--select-iterate final: the last iterate's).",
	}},
	{"the charts pane", []string{
		"x is the outer iteration, or the search's wall time with t (pauses left out). " +
			"▲ is the cursor (←/→); each line's value there follows its name in the legend. " +
			"◆ marks a change of the learning rates. z/Z zoom, [ ] pan, m smooths (EMA; the read-out stays raw).",
		"outer risk: R, the outer objective (--objective) of the inner model after its inner training, " +
			"on the validation split (the training split with --outer-on train). " +
			"The search moves the weights to lower it. y puts it on a log scale.",
		"accuracy: the inner model's worst-group accuracy (its lowest over the groups) and average accuracy, " +
			"on validation (val) and on test (TEST).",
		"group weight fractions: each group's share of the total weight u = w·m over the training samples " +
			"(w the sample weights, m the keep mask).",
		"validation accuracy per group (inner model): the inner model's validation accuracy in each group.",
		"keep fraction: the share of the training samples the keep mask keeps (a search whose --keep or --keep0 is below 1).",
	}},
	{"the groups pane (tab)", []string{
		"u = w·m per group: a histogram of each group's weights u, from 0 to the largest, and the group's share of the total u.",
		"iteration N: the outer risk; the inner loss (the weighted training loss at the last inner step); " +
			"val and TEST accuracy and worst-group accuracy; val per group, * marking the worst group.",
		figuresGlossary,
		"seconds: the iteration's time in the inner training (inner), the outer gradient (outer) and the hypergradient (hyper).",
		"top-weighted samples: the training samples with the largest u: id, label y, group, u and keep probability s.",
		"events: the latest pauses, resumes, rate changes, checkpoints and exports, each at its iteration (@N).",
	}},
	{"the samples pane (tab twice)", []string{
		"The most up-weighted training samples (the largest u) and the most dropped (the lowest keep probability s). " +
			"Images are drawn; rows of features list their values. Each has its label, group, u and s. g shows one group at a time. " +
			"While the search runs they are the latest iteration's. Once it has ended, the selected iterate's exported weights rank every training sample.",
	}},
	{"the footer", []string{
		"The last notice sits above the keys: a question, an export's files, how the search ended, the result. " +
			"The result is the final model's, at its checkpoint selected on validation. " +
			"TEST figures are shown for monitoring only: " + helpEnd,
	}},
}

// helpEnd ends the help page.
const helpEnd = "every choice uses the validation split, never the test split."

// helpText is the help page's text at width w: the keys on offer, then
// helpSections, wrapped at spaces.
func (d *Dashboard) helpText(w int) string {
	var b strings.Builder
	b.WriteString(wrapSpaces(styles.Title.Render("help")+"  (↑/↓ pgup/pgdn home/end scroll; any other key closes this help)", w, "") + "\n\n")
	d.help.SetWidth(w)
	groups := d.offered().FullHelp()
	keys := d.help.FullHelpView(groups)
	if lipgloss.Width(keys) > w || strings.Contains(keys, d.help.Ellipsis) {
		// Too narrow for the columns side by side: one under another.
		var cols []string
		for _, g := range groups {
			cols = append(cols, d.help.FullHelpView([][]key.Binding{g}))
		}
		keys = strings.Join(cols, "\n")
	}
	b.WriteString(keys)
	for _, s := range helpSections {
		b.WriteString("\n\n" + styles.Title.Render(s.title))
		for _, p := range s.paras {
			b.WriteString("\n" + wrapSpaces(p, w, ""))
		}
	}
	return b.String()
}

// pageKey takes a key while the help page is open: the scroll keys
// scroll it, any other closes it.
func (d *Dashboard) pageKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	p := &d.page
	switch {
	case key.Matches(k, d.pageKeys.Up):
		p.ScrollUp(1)
	case key.Matches(k, d.pageKeys.Down):
		p.ScrollDown(1)
	case key.Matches(k, d.pageKeys.PageUp):
		p.PageUp()
	case key.Matches(k, d.pageKeys.PageDown):
		p.PageDown()
	case key.Matches(k, d.pageKeys.Top):
		p.GotoTop()
	case key.Matches(k, d.pageKeys.Bottom):
		p.GotoBottom()
	default:
		d.showHelp = false
	}
	return d, nil
}

// helpView draws the help page in a box of w x h: the viewport at the
// box's inner size, over the text laid out for that width.
func (d *Dashboard) helpView(w, h int) string {
	iw, ih := max(1, w-2), max(1, h-2)
	d.page.SetWidth(iw)
	d.page.SetHeight(ih)
	d.page.SetContent(d.helpText(iw - 1))
	return styles.Pane.Width(w).Height(h).Render(fit(d.page.View(), iw, ih))
}

// pageFooter is the footer's key line while the help page is open, w
// cells wide: its keys, and how far down the page is.
func (d *Dashboard) pageFooter(w int) string {
	pos := fmt.Sprintf("%3.0f%%", 100*d.page.ScrollPercent())
	d.help.SetWidth(max(1, w-len(pos)-1))
	return shortHelp(d.help, d.pageKeys.ShortHelp()) + " " + styles.Dim.Render(pos)
}
