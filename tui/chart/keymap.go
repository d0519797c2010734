package chart

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// KeyMap are the chart component's keys (the dashboard's charts, a
// comparison).
type KeyMap struct {
	Back, Forward, Zoom, ZoomOut, PanBack, PanOn, Log, Smooth, Wall key.Binding
}

func DefaultKeyMap() KeyMap {
	return KeyMap{
		Back:    key.NewBinding(key.WithKeys("left"), key.WithHelp("←/→", "cursor")),
		Forward: key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "cursor later")),
		Zoom:    key.NewBinding(key.WithKeys("z"), key.WithHelp("z/Z", "zoom in/out")),
		ZoomOut: key.NewBinding(key.WithKeys("Z"), key.WithHelp("Z", "zoom out")),
		PanBack: key.NewBinding(key.WithKeys("["), key.WithHelp("[/]", "pan")),
		PanOn:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "pan later")),
		Log:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "log risk")),
		Smooth:  key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "smooth (EMA)")),
		Wall:    key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "x: iteration/time")),
	}
}

// Help is the help page's column of the chart keys (each pair on one
// line).
func (k KeyMap) Help() []key.Binding {
	return []key.Binding{k.Back, k.Zoom, k.PanBack, k.Log, k.Smooth, k.Wall}
}

// KeyMsg is the chart component's message of key k (nil: not a
// chart key).
func KeyMsg(ck KeyMap, k tea.KeyPressMsg) tea.Msg {
	for _, c := range []struct {
		k   key.Binding
		msg tea.Msg
	}{{ck.Back, CursorMsg(-1)}, {ck.Forward, CursorMsg(1)}, {ck.Zoom, ZoomMsg(1)}, {ck.ZoomOut, ZoomMsg(-1)},
		{ck.PanBack, PanMsg(-1)}, {ck.PanOn, PanMsg(1)}, {ck.Log, LogMsg{}}, {ck.Smooth, SmoothMsg{}}, {ck.Wall, WallMsg{}}} {
		if key.Matches(k, c.k) {
			return c.msg
		}
	}
	return nil
}
