package session

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/runs"
)

// Headless runs r in this process without a UI: a progress line per
// outer iteration (a baseline's per tenth of its steps) into the run's
// log.txt and on errOut, the log first, so that a closed terminal or
// pipe does not stop the run. A detached run's errOut is its log
// already, and gets each line once.
func Headless(ctx context.Context, r *runs.Run, sp *dataset.Splits, opt Options, errOut io.Writer) (*runs.Summary, error) {
	logf, err := r.OpenLog()
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	opt.Lines, opt.Log = true, logf
	if !sameFile(errOut, logf) {
		opt.Log = io.MultiWriter(logf, errOut)
	}
	fmt.Fprintf(opt.Log, "run %s in %s\n", r.Config.ID, r.Dir)
	return Execute(ctx, r, sp, opt)
}

// sameFile reports whether w is the open file f (a process whose standard
// error was opened on f).
func sameFile(w io.Writer, f *os.File) bool {
	wf, ok := w.(*os.File)
	if !ok {
		return false
	}
	a, err1 := wf.Stat()
	b, err2 := f.Stat()
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
