package session

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// TestClosedOutputPipe: `maple run ... 2>&1 | head` whose reader has gone
// (head exited) does not end the search: it runs to its end, writing
// log.txt, and exits 0. It died of SIGPIPE (exit 141), leaving the run
// interrupted.
func TestClosedOutputPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	cmd := exec.Command(maple(t), append(searchArgs, "--runs-dir", dir)...)
	out, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out.Close() // the reader is gone before the first line
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("maple run with its output pipe closed: %v (%s), want exit 0", err, cmd.ProcessState)
	}
	id := onlyRun(t, dir)
	if st := runs.Stat(filepath.Join(dir, id)).Status; st != core.StatusDone {
		t.Errorf("status %s, want done", st)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, id, runs.LogFile)); !strings.Contains(string(b), "iter   12/12") {
		t.Errorf("log.txt lacks the last iteration:\n%s", b)
	}
}
