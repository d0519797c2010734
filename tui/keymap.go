package tui

import (
	"charm.land/bubbles/v2/key"

	"github.com/maple-ood/maple/tui/chart"
	"github.com/maple-ood/maple/tui/list"
)

// One key map per view drives both the key handling (key.Matches) and
// the help, short in the footer and full on ?, so the two never disagree
// (soft-serve's pkg/ui/keymap pattern).

// dashboardKeys are the dashboard's keys.
type dashboardKeys struct {
	Pause, Rates, Checkpoint, Export, Stop, Pane, Up, Down, PageUp, PageDown, Help, Quit key.Binding
	chart.KeyMap                                                                                     // the charts'
	Group                                                                                key.Binding // the samples pane's group
	Leave                                                                                key.Binding // an attached view or a replay
}

func newDashboardKeys() dashboardKeys {
	return dashboardKeys{
		Pause:      key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "pause")),
		Rates:      key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "rates")),
		Checkpoint: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "checkpoint")),
		Export:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export")),
		Stop:       key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "stop")),
		Pane:       key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "pane")),
		KeyMap:     chart.DefaultKeyMap(),
		Group:      key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "samples: next group")),
		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Leave:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "leave (as q)")),
	}
}

// ShortHelp is the footer line.
func (k dashboardKeys) ShortHelp() []key.Binding {
	// Quit and help first: a narrow footer cuts from the right.
	return []key.Binding{k.Quit, k.Help, k.Pause, k.Rates, k.Checkpoint, k.Export, k.Stop, k.Pane}
}

// FullHelp is the help page, in columns.
func (k dashboardKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Pause, k.Rates, k.Checkpoint, k.Export, k.Stop, k.Help, k.Quit, k.Leave}, {k.Pane, k.Up, k.Down, k.PageUp, k.PageDown, k.Group}, k.KeyMap.Help()}
}

// confirmKeys answer a yes/no question; a second Ctrl-C is a yes.
type confirmKeys struct{ Yes key.Binding }

func newConfirmKeys() confirmKeys {
	return confirmKeys{Yes: key.NewBinding(key.WithKeys("y", "Y", "ctrl+c"), key.WithHelp("y", "yes"))}
}

// browserKeys are the runs browser's keys.
type browserKeys struct {
	Open, Select, Compare, Group, Attach, Resume, Stop, Sweep, New, Archive, Delete, Filter, Sort, SortBack, Reverse, Back, Help, Quit key.Binding
}

func newBrowserKeys() browserKeys {
	lk := list.DefaultKeyMap() // the list's own: filter, sort, select
	return browserKeys{
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Select:   lk.Select,
		Compare:  key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "compare")),
		Group:    key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "group by")),
		Attach:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "attach")),
		Resume:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "resume")),
		Stop:     key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "stop")),
		Sweep:    key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "sweep view")),
		New:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new")),
		Archive:  key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "archive")),
		Delete:   key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "delete")),
		Filter:   lk.Filter,
		Sort:     lk.Sort,
		SortBack: lk.SortBack,
		Reverse:  lk.Reverse,
		Back:     key.NewBinding(key.WithKeys("esc", "backspace", "q"), key.WithHelp("esc", "back to the list")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the footer line; help and quit come first so that a
// narrow terminal never cuts them.
func (k browserKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Quit, k.Open, k.Select, k.Compare, k.Group, k.Attach, k.Resume, k.Stop, k.New, k.Filter, k.Sort}
}

// FullHelp is the help page, in columns.
func (k browserKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Open, k.Select, k.Compare, k.Group}, {k.Attach, k.Resume, k.Stop, k.Sweep, k.New, k.Archive, k.Delete}, {k.Filter, k.Sort, k.SortBack, k.Reverse}, {k.Back, k.Help, k.Quit}}
}

// compareKeys are a comparison's: the chart component's, scrolling,
// and back to the list (the browser's Back).
type compareKeys struct {
	chart.KeyMap
	Metric, MetricBack         key.Binding // the metric charted: next, previous
	Band                       key.Binding // the bands' span: ± sd or min–max
	Up, Down, PageUp, PageDown key.Binding
}

func newCompareKeys() compareKeys {
	return compareKeys{KeyMap: chart.DefaultKeyMap(),
		Metric:     key.NewBinding(key.WithKeys("v"), key.WithHelp("v/V", "metric")),
		MetricBack: key.NewBinding(key.WithKeys("V"), key.WithHelp("V", "previous metric")),
		Band:       key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "band sd/min-max")),
		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn/pgup", "scroll")),
	}
}

// ShortHelp is the comparison's footer (after the browser's esc).
func (k compareKeys) ShortHelp() []key.Binding {
	back, help := newBrowserKeys().Back, newBrowserKeys().Help
	return []key.Binding{back, help, k.Metric, k.PageDown, k.Back, k.Zoom, k.PanBack, k.Log, k.Smooth, k.Wall, k.Band}
}

// FullHelp lists the same keys.
func (k compareKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.ShortHelp(), {k.MetricBack, k.Up, k.Down, k.PageUp}}
}

// backKeys leave a run's replay or a baseline's page.
type backKeys struct{ Back key.Binding }

func (k backKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Back} }
func (k backKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// baselineKeys are a running baseline's live view's: it can only stop,
// and its curve takes the chart keys.
type baselineKeys struct {
	Stop, Quit key.Binding
	chart.KeyMap
}

func newBaselineKeys() baselineKeys {
	return baselineKeys{
		Stop:   key.NewBinding(key.WithKeys("x", "q", "esc"), key.WithHelp("x/q", "stop (asks first)")),
		Quit:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "stop at once")),
		KeyMap: chart.DefaultKeyMap(),
	}
}

// ShortHelp is the footer line.
func (k baselineKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Stop, k.Quit, k.Back, k.Zoom, k.PanBack, k.Smooth}
}

// FullHelp is the help page.
func (k baselineKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Stop, k.Quit}, k.KeyMap.Help()}
}

// pageKeys scroll a page of text (the dashboard's help); any other key
// closes it.
type pageKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Close key.Binding
}

func newPageKeys() pageKeys {
	return pageKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "scroll")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/pgdn", "page")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "space", "f"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/end", "top/end")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "end")),
		Close:    key.NewBinding(key.WithKeys("?", "esc", "q"), key.WithHelp("?/esc", "close")),
	}
}

// ShortHelp is the page's footer: close first, a narrow footer keeps it.
func (k pageKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Close, k.Up, k.PageUp, k.Top}
}

// FullHelp lists the same keys.
func (k pageKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
