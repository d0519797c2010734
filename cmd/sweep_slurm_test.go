package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCellArgs: a Slurm task's command keeps the --only given (it was
// dropped, and the task ran every cell) and carries its submission time;
// a printed command drops --only for its own cell's.
func TestCellArgs(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	argv := []string{"sweep", "--name", "s", "--seeds", "1,2", "--only", "a4c87e24c54b6ff6", "--slurm", "--slurm-args", "-p debug", "--runs-dir", "r"}
	for _, tc := range []struct {
		name string
		o    SweepOptions
		want string
	}{
		{"slurm", SweepOptions{Slurm: true}, "[sweep --name s --seeds 1,2 --only a4c87e24c54b6ff6 --runs-dir /abs --submitted 2026-01-02T03:04:05.000000006Z]"},
		{"printed", SweepOptions{PrintCommands: true}, "[sweep --name s --seeds 1,2 --runs-dir /abs]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(cellArgs(&tc.o, argv, "/abs", now)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestSlurmOptions: --slurm-args is split as a shell splits it, an
// option and its value on one #SBATCH line, a value with spaces quoted
// ("--comment='a b'" failed: sbatch got "--comment='a" and "b'").
func TestSlurmOptions(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"--partition=gpu --time=4:00:00", "[--partition=gpu --time=4:00:00]", ""},
		{"-p debug --time 0:05:00", "[-p debug --time 0:05:00]", ""},
		{"--comment='a b' --exclusive", "[--comment='a b' --exclusive]", ""},
		{`--comment "it's"`, `[--comment 'it'\''s']`, ""},
		{"debug", "", `"debug" is not an sbatch option`},
		{"--comment='a b", "", "--slurm-args"},
		{"", "[]", ""},
	} {
		got, err := slurmOptions(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || fmt.Sprint(got) != tc.want):
			t.Errorf("%q: %v %v, want %s", tc.in, got, err, tc.want)
		}
	}
}

// TestBadSlurmArgsCreateNothing: --slurm-args a shell cannot split is
// refused before the sweep's record is written (it was refused after).
func TestBadSlurmArgsCreateNothing(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: dir, Terminal: func() bool { return false }}
	root := NewCmdRoot(f)
	root.SetArgs([]string{"sweep", "--name", "s", "--methods", "erm", "--seeds", "1", "--slurm", "--slurm-args", "--comment='a b", "--runs-dir", dir})
	if code := ExitCode(f, root.Execute()); code != ExitUsage {
		t.Errorf("exit %d, want %d: %s", code, ExitUsage, out.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("the runs directory holds %v", ents)
	}
}

// TestPrintCommandsRecordsNothing: printing a grid's commands leaves no
// record (a mistyped grid printed to look at it added its cells to the
// sweep's table for good, as missing); running a printed command does.
func TestPrintCommandsRecordsNothing(t *testing.T) {
	dir := t.TempDir()
	exec := func(args ...string) string {
		var out, errb bytes.Buffer
		f := &Factory{In: strings.NewReader(""), Out: &out, Err: &errb, RunsDir: dir, Terminal: func() bool { return false }}
		root := NewCmdRoot(f)
		root.SetArgs(append(args, "--runs-dir", dir))
		if code := ExitCode(f, root.Execute()); code != ExitOK {
			t.Fatalf("maple %v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	grid := []string{"sweep", "--name", "p", "--datasets", "synthetic", "--methods", "erm", "--seeds", "1", "--eval-steps", "20"}
	out := exec(append(grid, "--print-commands")...)
	if _, err := os.Stat(filepath.Join(dir, ".sweeps", "p.json")); err == nil {
		t.Fatal("--print-commands wrote the sweep's record")
	}
	only := strings.Fields(out)
	exec(append(grid, "--only", only[len(only)-1])...)
	if _, err := os.Stat(filepath.Join(dir, ".sweeps", "p.json")); err != nil {
		t.Errorf("a printed command's run left no record: %v", err)
	}
}

// TestCellsTakeDigest: a sweep's cells on a person's own file carry its
// digest, which keys them: the same flags on a rewritten file are other
// cells (a rerun said "done already" and showed the old results).
func TestCellsTakeDigest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	write := func(v string) {
		os.WriteFile(path, []byte("f1,label,split\n"+v+",0,train\n1,1,train\n2,0,val\n3,1,test\n"), 0o600)
	}
	hashes := func() []string {
		var out []string
		for range 2 {
			var o *SweepOptions
			c := NewCmdSweep(&Factory{}, func(so *SweepOptions) error { o = so; return nil })
			c.SetArgs([]string{"--name", "d", "--datasets", "features", "--csv", path, "--methods", "erm,maple:rex", "--seeds", "1"})
			if err := c.Execute(); err != nil {
				t.Fatal(err)
			}
			_, cells, err := sweepGrid(o)
			if err != nil {
				t.Fatal(err)
			}
			for _, cl := range cells {
				if cl.Config.Dataset.Digest == "" {
					t.Fatalf("cell %s has no digest", cl.Label)
				}
				out = append(out, cl.Config.Hash(false))
			}
		}
		return out
	}
	write("0")
	a := hashes()
	write("9")
	b := hashes()
	if a[0] != a[2] || a[1] != a[3] {
		t.Errorf("the same file, other hashes: %v", a)
	}
	if a[0] == b[0] || a[1] == b[1] {
		t.Errorf("a rewritten file keeps the cells' hashes: %v and %v", a, b)
	}
}

// TestRunTakesDigest: maple run on a person's own file records its
// digest, which every load of the run checks.
func TestRunTakesDigest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(path, []byte("f1,label,split\n0,0,train\n1,1,train\n2,0,val\n3,1,test\n"), 0o600)
	var o *RunOptions
	c := NewCmdRun(&Factory{}, func(ro *RunOptions) error { o = ro; return nil })
	c.SetArgs([]string{"--dataset", "features", "--csv", path, "--method", "erm"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	cfg, err := o.config(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Dataset.Digest) != 64 {
		t.Errorf("digest %q", cfg.Dataset.Digest)
	}
}
