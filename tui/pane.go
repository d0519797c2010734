package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/dataset"
)

// pane is one of the dashboard's panes, a component with its own state
// (soft-serve's pkg/ui/components): it takes messages in Update, is
// given its size by the dashboard's layout, and draws its content, after
// its own scrolling, in View. The dashboard draws the box around it.
type pane interface {
	Update(msg tea.Msg) tea.Cmd
	// SetSize gives the content's width and height; alone says the pane
	// fills the body (a narrow terminal) rather than sharing it.
	SetSize(w, h int, alone bool)
	View() string
}

// Messages the dashboard sends its panes.
type (
	// scrollMsg scrolls the focused pane by that many lines.
	scrollMsg int
	// blurMsg tells a pane it lost the focus: it shows its top again.
	blurMsg struct{}
	// focusMsg tells a pane it has the focus (the samples pane then reads
	// what it shows).
	focusMsg struct{}
	// runDirMsg names the run directory (Dashboard.SetDir).
	runDirMsg string
	// trainMsg gives the training split the search runs on
	// (Dashboard.SetTrain).
	trainMsg struct{ train *dataset.Dataset }
	// exportedMsg and EndMsg, the dashboard's own, go to every pane too.
	// The chart component's messages (tui/chart) go to every pane.
)

// scroller is a pane's scrolling: the first line shown.
type scroller struct{ scroll int }

// update takes a scroll or blur message.
func (s *scroller) update(msg tea.Msg) {
	switch m := msg.(type) {
	case scrollMsg:
		s.scroll = max(0, s.scroll+int(m))
	case blurMsg:
		s.scroll = 0
	}
}

// view cuts content to h lines from the scroll position, each line cut to w cells.
func (s *scroller) view(content string, w, h int) string {
	return fit(scrollLines(content, h, s.scroll), w, h)
}
