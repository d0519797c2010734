package experiments

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "exp.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name, text, err string
		sweeps, choices int // of a file that loads
	}{
		{name: "good", text: "title = \"T\"\nbuild = \"openblas\"\nthreads = 2\n[[sweep]]\nname = \"a\"\nargs = [\"--methods\", \"erm,maple:rex\", \"--seeds\", \"1,2\"]\n", sweeps: 1},
		{name: "unknown key", text: "title = \"T\"\nthread = 2\n[[sweep]]\nname = \"a\"\n", err: `unknown key "thread"`},
		{name: "no title", text: "[[sweep]]\nname = \"a\"\n", err: "no title"},
		{name: "no sweep", text: "title = \"T\"\n", err: "no sweep"},
		{name: "sweep without name", text: "title = \"T\"\n[[sweep]]\nargs = []\n", err: "sweep 1 has no name"},
		{name: "twice", text: "title = \"T\"\n[[sweep]]\nname = \"a\"\n[[sweep]]\nname = \"a\"\n", err: "sweep a is given twice"},
		{name: "reserved flag", text: "title = \"T\"\n[[sweep]]\nname = \"a\"\nargs = [\"--runs-dir=/x\"]\n", err: "--runs-dir is set by maple reproduce"},
		{name: "bad seeds", text: "title = \"T\"\n[[sweep]]\nname = \"a\"\nargs = [\"--seeds\", \"1,x\"]\n", err: `--seeds "1,x"`},
		{name: "reference names no sweep", text: "title = \"T\"\nreference = \"b\"\n[[sweep]]\nname = \"a\"\n", err: `reference "b" names no sweep`},
		{name: "against names no sweep", text: "title = \"T\"\nreference = \"a\"\n[[sweep]]\nname = \"a\"\n[[sweep]]\nname = \"c\"\nagainst = \"b\"\n", err: `sweep c: against = "b" names no other sweep`},
		{name: "against names its own sweep", text: "title = \"T\"\nreference = \"a\"\n[[sweep]]\nname = \"a\"\n[[sweep]]\nname = \"c\"\nagainst = \"c\"\n", err: `sweep c: against = "c" names no other sweep`},
		{name: "against without a reference", text: "title = \"T\"\n[[sweep]]\nname = \"a\"\n[[sweep]]\nname = \"c\"\nagainst = \"a\"\n", err: `sweep c: against = "a" without a reference`},
		{name: "headline names no sweep", text: "title = \"T\"\nheadline = [\"erm\", \"b:erm\"]\n[[sweep]]\nname = \"a\"\n", err: `headline "b:erm" names no sweep`},
		{name: "headline of a sweep", text: "title = \"T\"\nbuild = \"openblas\"\nthreads = 2\nheadline = [\"a:erm\"]\n[[sweep]]\nname = \"a\"\n", sweeps: 1},
		{name: "not toml", text: "title = \n", err: "experiment file"},
		{name: "choice", text: "title = \"T\"\nbuild = \"openblas\"\nthreads = 2\n[[sweep]]\nname = \"a\"\n[[sweep]]\nname = \"b\"\n[[choice]]\nname = \"c\"\nsweeps = [\"a\", \"b\"]\n", sweeps: 2, choices: 1},
		{name: "choice without name", text: "title = \"T\"\n[[sweep]]\nname = \"a\"\n[[choice]]\nsweeps = [\"a\", \"a\"]\n", err: "a [[choice]] has no name"},
		{name: "choice of one sweep", text: "title = \"T\"\n[[sweep]]\nname = \"a\"\n[[choice]]\nname = \"c\"\nsweeps = [\"a\"]\n", err: "choice c: give sweeps"},
		{name: "choice names no sweep", text: "title = \"T\"\n[[sweep]]\nname = \"a\"\n[[choice]]\nname = \"c\"\nsweeps = [\"a\", \"b\"]\n", err: `choice c: sweep "b" is not one`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Load(write(t, tc.text))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if f.Name != "exp" || f.Build != "openblas" || f.Threads != 2 || len(f.Sweeps) != tc.sweeps || len(f.Choices) != tc.choices {
					t.Fatalf("loaded %+v", f)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
}

func TestSweepArgs(t *testing.T) {
	s := Sweep{Name: "a", Args: []string{"--datasets", "cmnist", "--methods", "erm,maple:rex,maple:irmv1", "--seeds", "3,1", "--models", "mlp:64,64;mlp:390,390"}}
	seeds, err := s.Seeds()
	if err != nil || !slices.Equal(seeds, []uint64{3, 1}) {
		t.Fatalf("Seeds %v %v, want [3 1]", seeds, err)
	}
	if got := s.WithSeed(7); !slices.Equal(got, []string{"--datasets", "cmnist", "--methods", "erm,maple:rex,maple:irmv1", "--models", "mlp:64,64;mlp:390,390", "--seeds", "7"}) {
		t.Fatalf("WithSeed %q", got)
	}
	if n := s.Cells(); n != 1*3*2*2 {
		t.Fatalf("Cells %d, want 12 (1 dataset x 3 methods x 2 seeds x 2 models)", n)
	}
	def := Sweep{Name: "b"}
	if n := def.Cells(); n != 9 {
		t.Fatalf("Cells of maple sweep's defaults %d, want 9 (synthetic x erm,oracle,maple:rex x 1,2,3)", n)
	}
	f := &File{Sweeps: []Sweep{s, {Name: "c", Args: []string{"--seeds=2"}}}}
	if got := f.Seeds(); !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Fatalf("File.Seeds %v, want [1 2 3]", got)
	}
}

func TestCompare(t *testing.T) {
	committed, err := ParseCSV("sweep,config_hash,seed,method,test_acc,test_worst,minutes,run_id\n" +
		"s,h1,1,erm,45.0000,40.0000,1.00,r1\n" +
		"s,h1,2,erm,46.0000,41.0000,1.00,r2\n" +
		"s,h2,1,maple/rex,74.0000,72.0000,1.00,r3\n")
	if err != nil {
		t.Fatal(err)
	}
	rerun, err := ParseCSV("sweep,config_hash,seed,method,test_acc,test_worst,minutes,run_id\n" +
		"s,h1,1,erm,45.0000,40.0000,2.50,x1\n" + // other time and id: not a difference
		"s,h1,2,erm,46.0001,41.0000,1.00,x2\n" + // one digit
		"s,h3,1,rex,60.0000,50.0000,1.00,x3\n") // h2 missing, h3 new
	if err != nil {
		t.Fatal(err)
	}
	d := Compare(committed, rerun)
	if len(d) != 3 {
		t.Fatalf("Compare: %d differences, want 3:\n%s", len(d), strings.Join(d, "\n"))
	}
	for i, want := range []string{`test_acc "46.0000" committed, "46.0001" now`, "committed, but the rerun has no finished run", "a finished run the committed file does not have"} {
		if !strings.Contains(d[i], want) {
			t.Errorf("difference %d: %q, want it to say %q", i, d[i], want)
		}
	}
	if d := Compare(committed, committed); len(d) != 0 {
		t.Fatalf("a table against itself: %q", d)
	}
}
