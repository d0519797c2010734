package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/setting"
)

// TestRefusedCommandNote: a command the search refuses is named as the
// person asked it, and its reason names flags, not core's fields.
func TestRefusedCommandNote(t *testing.T) {
	frozen := &setting.Error{Field: "Settings.WeightLR", Value: "0", Text: " freezes the sample weights, and {Settings.Keep} 1 keeps every sample: the search would learn nothing"}
	cases := []struct {
		name      string
		kind      core.EventKind
		err       error
		want      []string
		forbidden []string
	}{
		{"rates refused on a keep-1 search", core.EventSetLR, frozen,
			[]string{"new learning rates not taken: --weight-lr 0 freezes the sample weights, and --keep 1 keeps every sample"}, []string{"Settings.", "set_lr"}},
		{"a pause refused", core.EventPause, errors.New("the search has ended"),
			[]string{"pause not taken: the search has ended"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDashboard(testConfig(), &fakeCtl{}, false)
			d.Update(ctlMsg{kind: tc.kind, err: tc.err})
			for _, w := range tc.want {
				if !strings.Contains(d.note, w) {
					t.Errorf("note %q lacks %q", d.note, w)
				}
			}
			for _, f := range tc.forbidden {
				if strings.Contains(d.note, f) {
					t.Errorf("note %q names %q", d.note, f)
				}
			}
		})
	}
}
