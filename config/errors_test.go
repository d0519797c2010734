package config_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/runs"
)

// TestDamagedRunJSONNamesTheField: a value in run.json that cannot work
// (damaged or edited) is refused naming the file and its field, not a
// flag the person never gave (it read "--outer-iters -5: want 1 to
// 1000000").
func TestDamagedRunJSONNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		name, section, field string
		value                any
		want, flag           string
	}{
		{"outer iterations", "settings", "outer_iters", -5, `settings.outer_iters -5: want 1 to 1000000`, "--outer-iters"},
		{"evaluation steps", "eval", "steps", 0, `eval.steps 0`, "--eval-steps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runsDir := t.TempDir()
			r, err := runs.Open(runsDir).Create(config.DefaultConfig("synthetic"))
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			var raw map[string]any
			b, _ := os.ReadFile(r.Path(runs.ConfigFile))
			json.Unmarshal(b, &raw)
			raw[tc.section].(map[string]any)[tc.field] = tc.value
			b, _ = json.Marshal(raw)
			os.WriteFile(r.Path(runs.ConfigFile), b, runs.FilePerm)
			_, err = runs.Open(runsDir).Open(r.Config.ID)
			if err == nil {
				t.Fatal("Open accepted the damaged run.json")
			}
			msg := config.FlagError(err).Error() // as maple prints it
			if !strings.Contains(msg, r.Path(runs.ConfigFile)) || !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.flag) {
				t.Errorf("error %q; want it to name %s and %q, not %s", msg, runs.ConfigFile, tc.want, tc.flag)
			}
		})
	}
}
