package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/tui"
)

// version is the program version recorded with every run.
const version = "0.2.0-dev"

// Version is the program version recorded with every run.
const Version = version

// Exit codes (documented in the README).
const (
	ExitOK     = 0
	ExitFailed = 1 // a run failed, or a command could not do its work
	ExitUsage  = 2 // bad flags or arguments: nothing was started
)

// usageError marks bad input: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// errInterrupted says a signal or Ctrl-C ended the command (exit 130).
var errInterrupted = errors.New("interrupted")

// Factory holds what every command needs from the process (cli/cli's
// cmdutil.Factory): the streams, whether they are a terminal, the runs
// directory flag.
type Factory struct {
	In       io.Reader
	Out, Err io.Writer
	// Terminal reports whether stdin and stdout are both terminals (the
	// dashboard and the browser need both; /dev/null is not one).
	Terminal func() bool
	// Width, when not nil, is the width help wraps to: $COLUMNS, else
	// the terminal's that standard output is (0: not one, and 80).
	Width   func() int
	RunsDir string
	// helpErr is a usage error found while printing help (`maple bogus
	// --help` names no command), which ExitCode reports.
	helpErr error
}

// Store hands out the run store of the runs directory (--runs-dir):
// every command reaches its runs through it.
func (f *Factory) Store() runs.Store { return runs.Open(f.RunsDir) }

// NewFactory returns the factory of this process: its standard streams,
// and the runs directory (DefaultRunsDir).
func NewFactory() *Factory {
	return &Factory{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, RunsDir: DefaultRunsDir(os.Getenv),
		Terminal: tui.Interactive, Width: func() int { return helpColumns(os.Getenv, tui.Width) }}
}

// DefaultRunsDir is the runs directory when --runs-dir is not given, one
// per user wherever maple is started: $MAPLE_RUNS_DIR, else
// $XDG_DATA_HOME/maple/runs, else ~/.local/share/maple/runs (./maple-runs
// when there is no home directory).
func DefaultRunsDir(getenv func(string) string) string {
	if d := getenv("MAPLE_RUNS_DIR"); d != "" {
		return d
	}
	if d := getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "maple", "runs")
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "share", "maple", "runs")
	}
	return "maple-runs"
}

// commit is the VCS revision the binary was built from, if known.
func commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return revision(bi.Settings)
	}
	return revision(nil)
}

// revision reads the VCS revision from a binary's build settings, marked
// "-dirty" when the working tree had uncommitted changes, so that run.json
// never names a commit its code was not; "unknown" when the build did not
// stamp one (go build -buildvcs=false, or outside a repository).
func revision(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev == "":
		return "unknown"
	case dirty:
		return rev + "-dirty"
	}
	return rev
}

// NewCmdRoot builds the maple command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:           "maple",
		Short:         "MAPLE sample reweighting for out-of-distribution learning",
		Version:       version + " (commit " + commit() + ")",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return lsRun(cmd.Context(), f, &LsOptions{F: f, Sort: "started"})
		},
	}
	root.SetFlagErrorFunc(flagError)
	root.PersistentFlags().StringVar(&f.RunsDir, "runs-dir", f.RunsDir, "directory that holds the runs; $MAPLE_RUNS_DIR sets the default")
	// Every path maple prints (a resume command, an error) is absolute, so
	// that it works from any directory and names where maple looked.
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		abs, err := filepath.Abs(f.RunsDir)
		if err != nil {
			return usageError{fmt.Errorf("--runs-dir %s: %w", f.RunsDir, err)}
		}
		f.RunsDir = abs
		// A runs directory that cannot be one is refused here, naming
		// the flag, before a command reads or creates anything in it.
		fi, err := os.Stat(abs)
		switch {
		case err == nil && !fi.IsDir(), errors.Is(err, syscall.ENOTDIR):
			return usageError{fmt.Errorf("--runs-dir %s: it or a directory above it is a file (the flag, else $MAPLE_RUNS_DIR, names the runs directory): give a directory; it is created when missing", abs)}
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return usageError{fmt.Errorf("--runs-dir %s: %w", abs, errors.Unwrap(err))}
		}
		// What a maple rm or archive cut short left is finished or said
		// by the next command that opens the runs directory.
		switch c.Name() {
		case "version", "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
		case "rm", "archive": // which may be the command that finishes one
			recoverStore(f, false)
		default:
			recoverStore(f, true)
		}
		return nil
	}
	root.AddCommand(NewCmdRun(f, nil), NewCmdResume(f, nil), NewCmdLs(f, nil), NewCmdShow(f, nil), NewCmdExport(f, nil),
		NewCmdEval(f, nil), NewCmdAttach(f, nil), NewCmdData(f, nil), NewCmdSweep(f, nil), NewCmdTable(f, nil), NewCmdPlot(f, nil),
		NewCmdStop(f, nil), NewCmdLogs(f, nil), NewCmdTag(f, nil), NewCmdReproduce(f, nil),
		NewCmdRm(f, nil), NewCmdArchive(f, nil),
		&cobra.Command{Use: "version", Short: "Print the version and the commit it was built from", Args: noArgs,
			Run: func(*cobra.Command, []string) {
				fmt.Fprintf(f.Out, "maple %s (commit %s)\nmatrix products: %s\n", version, commit(), nets.BLAS())
				if ok, why := nets.BF16(); ok {
					fmt.Fprintln(f.Out, "--precision bf16: available")
				} else {
					fmt.Fprintf(f.Out, "--precision bf16: not available (%s)\n", why)
				}
				for _, d := range nets.LoadEnv() {
					v, set := os.LookupEnv(d.Name)
					from := "maple's default: " + d.Why
					if v != d.Value {
						from = "from the environment; maple's default " + d.Value
					}
					if !set {
						v, from = "unset", "maple re-executes itself to set "+d.Value+"; this process did not"
					}
					fmt.Fprintf(f.Out, "%s=%s (%s)\n", d.Name, v, from)
				}
			}})
	registerCompletion(f, root)
	addHelp(f, root)
	// `maple bogus --help`: cobra finds no command and would print the
	// root's help; say instead that there is no such command.
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c == root {
			if err := noArgs(c, c.Flags().Args()); err != nil {
				f.helpErr = err
				return
			}
		}
		f.writeHelp(c)
	})
	// `maple help bogus` likewise (cobra's help command prints the root's
	// help for a topic it cannot find under a root that takes no
	// arguments); its completion of topics stays cobra's.
	root.InitDefaultHelpCmd()
	if hc, _, err := root.Find([]string{"help"}); err == nil && hc != root {
		hc.Run = nil
		hc.RunE = func(_ *cobra.Command, args []string) error {
			c, rest, err := root.Find(args)
			if err != nil || c == root && len(rest) > 0 {
				return noArgs(root, rest)
			}
			return c.Help()
		}
	}
	return root
}

// ExitCode reports err (when not nil) on f's error stream and returns the
// process's exit code: 0, 1 (failed), 2 (usage) or 130 (interrupted).
func ExitCode(f *Factory, err error) int {
	if err == nil {
		err = f.helpErr
	}
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errInterrupted):
		return session.ExitInterrupted
	case closedOutput(err):
		// The reader of the output went away (`maple ls | head -1`): what
		// it read is all it wanted, so the command ends quietly, with 0
		// (the process takes SIGPIPE itself, so that a search goes on
		// when its output pipe closes; a tool SIGPIPE ends exits 141).
		return ExitOK
	}
	fmt.Fprintln(f.Err, "maple:", config.FlagError(err))
	var u usageError
	if errors.As(err, &u) && !errors.Is(err, loaders.ErrDownload) { // data that cannot be read is bad input; a failed download is not
		return ExitUsage
	}
	return ExitFailed
}

// closedOutput tells whether err is a write to standard output or error
// whose reader has closed the pipe (EPIPE), not a socket's or a file's.
func closedOutput(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && errors.Is(pe.Err, syscall.EPIPE) &&
		(pe.Path == os.Stdout.Name() || pe.Path == os.Stderr.Name())
}
