package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/runs"
)

// TestUsageErrors: bad commands, arguments and flag values exit 2 with a
// message that says what was expected, and suggests the nearest command
// or flag for a typo.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"show without an id", []string{"show"}, "maple show needs a run id (see maple ls)"},
		{"data without a name", []string{"data"}, "maple data needs a dataset name (one of synthetic, cmnist"},
		{"export to an unknown format", []string{"export", "X", "--format", "parquet"}, `--format "parquet": want csv or npy or metrics-csv or tensorboard or training-csv`},
		{"an unknown command", []string{"bogus"}, `unknown command "bogus"`},
		{"a typo of a command", []string{"rn"}, "did you mean ls or rm or run?"},
		{"a typo of a flag", []string{"run", "--datset", "cmnist"}, "unknown flag: --datset; did you mean --dataset?"},
		{"resume of no run", []string{"resume", "NOSUCH"}, `no run "NOSUCH"`},
		{"show of no run", []string{"show", "NOSUCH"}, `no run "NOSUCH"`},
		{"an extra argument", []string{"show", "a", "b"}, `"b" is one argument too many`},
		{"an argument to ls", []string{"ls", "x"}, "maple ls takes no arguments"},
		{"help of an unknown command", []string{"bogus", "--help"}, `unknown command "bogus"`},
		{"help on no such topic", []string{"help", "bogus"}, `unknown command "bogus"`},
		{"the status of no sweep", []string{"sweep", "--name", "nosuch", "--status"}, `no sweep "nosuch"`},
		{"data from a file that is not there", []string{"data", "features", "--csv", "/nonexistent/t.csv"}, "/nonexistent/t.csv"},
		{"slurm args a shell cannot split", []string{"sweep", "--name", "s", "--slurm", "--slurm-args", "--comment='a b"}, "--slurm-args"},
		{"attach to nothing", []string{"attach", "nosuch"}, `no run or sweep named "nosuch"`},
		{"a sweep name that climbs out", []string{"sweep", "--name", "../../x", "--print-commands"}, `--name "../../x": want letters, digits`},
		{"a sweep name with a space (a Slurm job name)", []string{"sweep", "--name", "sp ace", "--print-commands"}, `--name "sp ace": want`},
		{"a negative seed, said without strconv", []string{"run", "--seed", "-1"}, "--seed -1: want a whole number, 0 or more (see"},
		{"a float for a count", []string{"run", "--outer-iters", "1e3"}, "--outer-iters 1e3: want a whole number (see"},
		{"a word for a rate", []string{"resume", "x", "--inner-lr", "abc"}, "--inner-lr abc: want a number"},
		{"an empty list", []string{"reproduce", "x", "--seeds", ""}, `--seeds "": want a list, comma-separated, each a whole number, 0 or more`},
		{"a duration without a unit", []string{"stop", "x", "--wait", "abc"}, "--wait abc: want a duration such as 90s, 5m or 1h30m"},
		{"compare, which table does", []string{"compare", "a", "b"}, `unknown command "compare"; did you mean table?`},
		{"--downsample 0 on synthetic, which reads none", []string{"run", "--dataset", "synthetic", "--downsample", "0"}, "--downsample applies to --dataset mnist-fashion, cifar-mnist, not synthetic"},
		{"--label-noise on synthetic", []string{"run", "--dataset", "synthetic", "--label-noise", "0.1"}, "--label-noise applies to --dataset cmnist"},
		{"--image-size to maple data synthetic", []string{"data", "synthetic", "--image-size", "32"}, "--image-size applies to --dataset waterbirds, celeba"},
		{"--dim to maple data cmnist", []string{"data", "cmnist", "--dim", "64"}, "--dim applies to --dataset waterbirds-sim, celeba-sim, not cmnist"},
		{"--dim 1 to maple data celeba-sim", []string{"data", "celeba-sim", "--dim", "1"}, "--dim 1: want 2 to 65536 features per row"},
		{"--downsample on a sweep of synthetic", []string{"sweep", "--name", "s", "--datasets", "synthetic", "--downsample", "3", "--print-commands"}, "--downsample applies to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: t.TempDir(), Terminal: func() bool { return false }}
			root := NewCmdRoot(f)
			root.SetArgs(tc.args)
			if code := ExitCode(f, root.Execute()); code != ExitUsage || !strings.Contains(out.String(), tc.want) {
				t.Errorf("maple %s: exit %d, want %d; output %q, want it to contain %q", strings.Join(tc.args, " "), code, ExitUsage, out.String(), tc.want)
			}
		})
	}
}

// TestDefaultRunsDir: one runs directory per user wherever maple starts.
func TestDefaultRunsDir(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"MAPLE_RUNS_DIR wins", map[string]string{"MAPLE_RUNS_DIR": "/data/runs", "XDG_DATA_HOME": "/x", "HOME": "/home/u"}, "/data/runs"},
		{"XDG data dir", map[string]string{"XDG_DATA_HOME": "/x", "HOME": "/home/u"}, "/x/maple/runs"},
		{"relative XDG is ignored, as the spec says", map[string]string{"XDG_DATA_HOME": "x", "HOME": "/home/u"}, "/home/u/.local/share/maple/runs"},
		{"home", map[string]string{"HOME": "/home/u"}, "/home/u/.local/share/maple/runs"},
		{"no home", map[string]string{}, "maple-runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DefaultRunsDir(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("DefaultRunsDir = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestHelpAndCompletionDetails: run --help prints no empty "(default )",
// and completion of export --format offers the export formats; sweep
// --help does not list --seed, which a sweep refuses, reproduce --help no "(default [])", and list is ls.
func TestHelpAndCompletionDetails(t *testing.T) {
	exec := func(args ...string) string {
		var out bytes.Buffer
		f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: t.TempDir(), Terminal: func() bool { return false }}
		root := NewCmdRoot(f)
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(args)
		root.Execute()
		return out.String()
	}
	if h := exec("run", "--help"); strings.Contains(h, "(default )") || !strings.Contains(h, "--penalty") {
		t.Errorf("run --help:\n%s", h)
	}
	if h := exec("sweep", "--help"); strings.Contains(h, "--seed ") || !strings.Contains(h, "--seeds") {
		t.Errorf("sweep --help lists --seed, which a sweep refuses:\n%s", h)
	}
	if h := exec("reproduce", "--help"); strings.Contains(h, "(default [])") {
		t.Errorf("reproduce --help:\n%s", h)
	}
	if c := exec("__complete", "help", "sw"); !strings.Contains(c, "sweep") {
		t.Errorf("completion of help's topics:\n%s", c)
	}
	if h := exec("help", "sweep"); !strings.Contains(h, "Run a grid of datasets") {
		t.Errorf("help sweep:\n%s", h)
	}
	if h := exec("list", "--help"); !strings.Contains(h, "List the runs") {
		t.Errorf("list --help is not ls's:\n%s", h)
	}
	if c := exec("__complete", "export", "x", "--format", ""); !strings.Contains(c, "npy") || !strings.Contains(c, "metrics-csv") || strings.Contains(c, "markdown") {
		t.Errorf("completion of export --format:\n%s", c)
	}
}

// TestResumeRefusesBadValues: a bad value of one of resume's flags is a
// usage error (exit 2, as the same value given to run is; it was 1),
// and the run's settings are left as they were.
func TestResumeRefusesBadValues(t *testing.T) {
	runsDir := t.TempDir()
	r, err := runs.Open(runsDir).Create(runs.DefaultConfig("synthetic"))
	if err != nil {
		t.Fatal(err)
	}
	id := r.Config.ID
	r.Close()
	before, _ := os.ReadFile(filepath.Join(runsDir, id, runs.ConfigFile))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a negative inner rate", []string{"--inner-lr", "-1"}, "--inner-lr -1: want"},
		{"a keep rate not a number", []string{"--keep-lr", "nan"}, "--keep-lr"},
		{"a negative weight rate", []string{"--weight-lr", "-0.5"}, "--weight-lr -0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: runsDir, Terminal: func() bool { return false }}
			root := NewCmdRoot(f)
			root.SetArgs(append([]string{"resume", id, "--headless"}, tc.args...))
			if code := ExitCode(f, root.Execute()); code != ExitUsage || !strings.Contains(out.String(), tc.want) {
				t.Errorf("exit %d, want %d; output %q, want it to contain %q", code, ExitUsage, out.String(), tc.want)
			}
			if after, _ := os.ReadFile(filepath.Join(runsDir, id, runs.ConfigFile)); !bytes.Equal(after, before) {
				t.Errorf("run.json changed")
			}
		})
	}
}

// TestRunsDirAFile: a --runs-dir that is a file, or below one, is refused
// by every command with a message that names the flag (ls said "open
// ...: not a directory", show "no run", sweep "mkdir ...").
func TestRunsDirAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "afile")
	os.WriteFile(file, []byte("x"), 0o600)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"ls", []string{"ls"}},
		{"the runs list", nil},
		{"show", []string{"show", "latest"}},
		{"sweep", []string{"sweep", "--name", "s", "--datasets", "synthetic", "--methods", "erm", "--seeds", "1"}},
		{"run", []string{"run", "--method", "erm", "--headless"}},
	} {
		for _, dir := range []string{file, filepath.Join(file, "runs")} {
			t.Run(tc.name+" "+filepath.Base(dir), func(t *testing.T) {
				var out bytes.Buffer
				f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: t.TempDir(), Terminal: func() bool { return false }}
				root := NewCmdRoot(f)
				root.SetArgs(append(tc.args, "--runs-dir", dir))
				want := "--runs-dir " + dir + ": it or a directory above it is a file"
				if code := ExitCode(f, root.Execute()); code != ExitUsage || !strings.Contains(out.String(), want) {
					t.Errorf("exit %d, want %d; output %q, want it to contain %q", code, ExitUsage, out.String(), want)
				}
			})
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the file was changed: %q", b)
	}
}

// TestPlural: counts in messages agree with their noun ("1 running cells
// stopped" said maple stop).
func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 running cells", 1: "1 running cell", 2: "2 running cells"} {
		if got := plural(n, "running cell"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}
