package experiments

import (
	"math"
	"testing"
)

func TestTimeLeft(t *testing.T) {
	file := &File{Name: "x", Sweeps: []Sweep{
		{Name: "a", Args: []string{"--methods", "erm,rex", "--seeds", "1,2,3"}}, // 6 cells
		{Name: "b", Args: []string{"--methods", "erm", "--seeds", "1,2"}},       // 2 cells
	}}
	row := func(sweep, minutes string) map[string]string {
		return map[string]string{"sweep": sweep, "minutes": minutes}
	}
	for _, tc := range []struct {
		name    string
		rows    []map[string]string
		minutes float64
		untimed int
	}{
		{"nothing run: every cell untimed", nil, 0, 8},
		{"two of a's cells at 10 and 20: four more at 15", []map[string]string{row("a", "10"), row("a", "20")}, 60, 2},
		{"a row of another sweep counts for none", []map[string]string{row("a", "10"), row("c", "99")}, 50, 2},
		{"an untimed row counts as done but not in the mean", []map[string]string{row("a", "10"), row("a", "0"), row("a", "")}, 30, 2},
		{"every row untimed: the rest untimed", []map[string]string{row("b", "")}, 0, 7},
		{"a row of a -dirty build is left to do, its minutes in the mean", []map[string]string{row("a", "10"), {"sweep": "a", "minutes": "20", "commit": "abc-dirty"}}, 75, 2},
		{"complete", []map[string]string{row("a", "1"), row("a", "1"), row("a", "1"), row("a", "1"), row("a", "1"), row("a", "1"), row("b", "2"), row("b", "2")}, 0, 0},
		{"more rows than cells: nothing left, never negative", []map[string]string{row("b", "2"), row("b", "2"), row("b", "2"), row("a", "1"), row("a", "1"), row("a", "1"), row("a", "1"), row("a", "1"), row("a", "1")}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Results{File: file}
			if tc.rows != nil {
				r.Runs = &Table{Header: []string{"sweep", "minutes"}, Rows: tc.rows}
			}
			m, u := r.TimeLeft()
			if math.Abs(m-tc.minutes) > 1e-9 || u != tc.untimed {
				t.Errorf("TimeLeft = %v min, %d untimed; want %v, %d", m, u, tc.minutes, tc.untimed)
			}
		})
	}
}
