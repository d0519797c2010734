package cmd

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// TestLogsFollowDiedRun: maple logs -f of a run whose process died (kill
// -9: its lock let go, no summary written) says so, with the command
// that continues it, and fails; a run that ended follows to exit 0 (it
// exited 0 and said nothing of the death).
func TestLogsFollowDiedRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary *runs.Summary // written when the run ends; nil: killed
		during  bool          // the run ends while followed
		wantErr bool
	}{
		{"killed while followed", nil, true, true},
		{"killed before", nil, false, true},
		{"done while followed", &runs.Summary{Done: true, Status: core.StatusDone, Iter: 2, Total: 2}, true, false},
		{"stopped before", &runs.Summary{Status: core.StatusStopped, Iter: 1, Total: 2}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runsDir := t.TempDir()
			r, err := runs.Open(runsDir).Create(runs.DefaultConfig("synthetic"))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(r.Path(runs.LogFile), []byte("iter 1/2\n"), 0o600)
			end := func() {
				if tc.summary != nil {
					r.WriteSummary(tc.summary)
				}
				r.Close() // the lock lets go, as the kernel lets go of a killed process's
			}
			if !tc.during {
				end()
			} else {
				go func() { time.Sleep(300 * time.Millisecond); end() }()
			}
			var out bytes.Buffer
			f := &Factory{Out: &out, Err: &out, RunsDir: runsDir, Terminal: func() bool { return false }}
			err = logsRun(context.Background(), &LogsOptions{F: f, ID: r.Config.ID, Follow: true})
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "maple resume "+r.Config.ID) || !strings.Contains(err.Error(), "died") {
					t.Errorf("error %v: want the run said dead, with the resume command", err)
				}
			} else if err != nil {
				t.Errorf("error %v for a run that ended", err)
			}
			if !strings.Contains(out.String(), "iter 1/2") {
				t.Errorf("the log was not printed: %q", out.String())
			}
		})
	}
}
