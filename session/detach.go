package session

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/setting"
)

// Detach continues the run r in a background process of its own session
// (`exe resume ID --headless --ready-fd 3` plus extra), with its output in
// the run's log. It releases r, and returns once the child says its search
// listens on the socket (so that maple attach works at once), or with the
// end of the child's log when the child ended before that.
func Detach(exe string, r *runs.Run, store runs.Store, extra []string) error {
	id := r.Config.ID
	r.Close()
	logf, err := r.OpenLog()
	if err != nil {
		return err
	}
	defer logf.Close()
	rd, wr, err := os.Pipe()
	if err != nil {
		return err
	}
	defer rd.Close()
	child := exec.Command(exe, append([]string{"resume", id, "--runs-dir", store.Dir(), "--headless", "--ready-fd", "3"}, extra...)...)
	child.Stdout, child.Stderr = logf, logf
	child.ExtraFiles = []*os.File{wr}
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := child.Start(); err != nil {
		wr.Close()
		return fmt.Errorf("cannot start the background search: %w", err)
	}
	wr.Close()
	child.Process.Release()
	buf := make([]byte, 64)
	n, _ := rd.Read(buf) // "ready\n", or EOF when the child ended first
	if !strings.HasPrefix(string(buf[:n]), "ready") {
		tail, _ := os.ReadFile(r.Path(runs.LogFile))
		lines := strings.Split(strings.TrimRight(string(tail), "\n"), "\n")
		return fmt.Errorf("the background search of run %s ended before it started; its log %s ends:\n%s", id, r.Path(runs.LogFile), strings.Join(lines[max(0, len(lines)-5):], "\n"))
	}
	return nil
}

// ReadyPipe returns the Ready hook of a detached child: it tells the
// parent waiting in Detach through the inherited file descriptor fd.
func ReadyPipe(fd int) func(Control) {
	f := os.NewFile(uintptr(fd), "ready")
	return func(Control) {
		fmt.Fprintln(f, "ready")
		f.Close()
	}
}

// givenRates returns inForce with each rate that resume's flags in set
// give (from s) in its place, and those flags.
func givenRates(inForce core.LearningRates, s core.Settings, set map[string]bool) (core.LearningRates, map[string]bool) {
	lr, given, flags := inForce, s.Rates(), map[string]bool{}
	for _, r := range []struct {
		field    string
		in, from *float64
	}{{"Settings.WeightLR", &lr.Weight, &given.Weight}, {"Settings.KeepLR", &lr.Keep, &given.Keep}, {"Settings.InnerLR", &lr.Inner, &given.Inner}} {
		if flag, ok := config.FlagOf(r.field); ok && set[flag] {
			*r.in, flags[flag] = *r.from, true
		}
	}
	return lr, flags
}

// Reopen opens run id of store to continue it: it refuses a finished
// run and takes the settings of resume's flags in set from given
// (config.Resumed): the data directory (the data moved) into the run's
// config, and the learning rates as the search's from its next iteration,
// each given one in place of the one in force, checked. It returns the
// rates (nil: those in force go on) and the resume flags that repeat these choices
// for a detached child (config.Args).
func Reopen(store runs.Store, id string, given runs.Config, set map[string]bool) (*runs.Run, *core.LearningRates, []string, error) {
	r, err := store.Open(id)
	if err != nil {
		return nil, nil, nil, err
	}
	fail := func(err error) (*runs.Run, *core.LearningRates, []string, error) {
		r.Close()
		return nil, nil, nil, err
	}
	if sum, _ := runs.ReadSummary(r.Dir); sum != nil && sum.Done {
		return fail(fmt.Errorf("run %s is done; see maple show %s", id, id))
	}
	// The rates given replace those in force (RatesInForce, after the
	// checkpoint the search continues from): they are no part of run.json,
	// which keeps the rates the run started with.
	from := 0
	if st, err := runs.ReadCheckpoint(r.Dir, func(string) {}); err == nil && st != nil {
		from = st.Iter
	}
	events, _ := runs.ReadEvents(r.Dir)
	inForce := runs.RatesInForce(&r.Config, events, from).LearningRates
	lr, rateFlags := givenRates(inForce, given.Settings, set)
	others := map[string]bool{}
	for f := range set {
		if !rateFlags[f] {
			others[f] = true
		}
	}
	next, err := config.Resumed(r.Config, given, others)
	if err != nil {
		return fail(err)
	}
	args := append(config.Args(next, others), config.Args(given, rateFlags)...)
	r.Config = next
	if lr == inForce { // none given, or those in force
		return r, nil, args, nil
	}
	// The rates given are bounded (setting.MaxRate); those in force go
	// on as the run recorded them.
	chk := lr
	for _, r := range []struct {
		v   *float64
		was float64
	}{{&chk.Weight, inForce.Weight}, {&chk.Keep, inForce.Keep}, {&chk.Inner, inForce.Inner}} {
		if *r.v == r.was {
			*r.v = setting.Recorded(*r.v)
		}
	}
	if err := next.Settings.CheckRates(chk); err != nil {
		return fail(config.FlagError(err))
	}
	return r, &lr, args, nil
}
