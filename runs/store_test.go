package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
)

func TestLocking(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir).Create(Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !Held(r.Dir) {
		t.Error("lock not held")
	}
	if _, err := Open(dir).Open(r.Config.ID); err == nil || !strings.Contains(err.Error(), "being written by process") {
		t.Errorf("second open of a held run: %v", err)
	}
	// Two runs created in the same second get distinct, ordered ids.
	r2, err := Open(dir).Create(Config{Method: "maple", Started: r.Config.Started})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if r2.Config.ID <= r.Config.ID {
		t.Errorf("ids %s then %s", r.Config.ID, r2.Config.ID)
	}
	r.Close()
	if Held(r.Dir) {
		t.Error("lock still held after Close")
	}
}

func TestCheckpointRoundTrip(t *testing.T) {
	base := core.State{Iter: 7, W: []float64{1, 2}, S: []float64{0.5, 0.25}, WM: []float64{3, 4}, WV: []float64{5, 6},
		SM: []float64{7, 8}, SV: []float64{9, 10}, AdamT: 7, RNG: []byte("rngstate"), LR: core.LearningRates{Weight: 1, Keep: 2, Inner: 3},
		Theta: []float32{1.5}}
	withBest := base
	withBest.BestIter, withBest.BestScore = 4, 0.625
	withBest.BestW, withBest.BestS, withBest.BestM = []float64{1.5, 0.5}, []float64{1, 0.75}, []bool{true, false}
	for name, st := range map[string]*core.State{"no selected iterate": &base, "selected iterate": &withBest} {
		t.Run(name, func(t *testing.T) { checkpointRoundTrip(t, st) })
	}
}

func checkpointRoundTrip(t *testing.T, st *core.State) {
	b := EncodeCheckpoint(st)
	got, err := DecodeCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(st)
	if !bytes.Equal(EncodeCheckpoint(got), b) || !bytes.Equal(gb, wb) {
		t.Error("round trip differs")
	}
	for i := range b {
		bad := bytes.Clone(b)
		bad[i] ^= 0x10
		if _, err := DecodeCheckpoint(bad); err == nil {
			t.Fatalf("flipped byte %d accepted", i)
		}
	}
	if _, err := DecodeCheckpoint(b[:len(b)-1]); err == nil {
		t.Error("truncated checkpoint accepted")
	}
}

// TestRunsDirOfOthers: a runs directory another user could rename runs
// in is refused before a run is created, naming the directory.
func TestRunsDirOfOthers(t *testing.T) {
	open := t.TempDir()
	os.Chmod(open, 0o777)
	if _, err := Open(open).Create(Config{Method: "maple"}); err == nil || !strings.Contains(err.Error(), "writable by other users") || !strings.Contains(err.Error(), open) {
		t.Errorf("a world-writable runs directory: %v", err)
	}
	if ents, _ := os.ReadDir(open); len(ents) != 0 {
		t.Errorf("something was created: %v", ents)
	}
	sticky := t.TempDir()
	os.Chmod(sticky, 0o777|os.ModeSticky)
	if r, err := Open(sticky).Create(Config{Method: "maple"}); err != nil {
		t.Errorf("a sticky shared directory (as /tmp): %v", err)
	} else {
		r.Close()
	}
	if os.Getuid() != 0 {
		return // only root can give a directory to another user
	}
	theirs := t.TempDir()
	os.Chown(theirs, 4242, 4242)
	if _, err := Open(theirs).Create(Config{Method: "maple"}); err == nil || !strings.Contains(err.Error(), "belongs to user 4242") {
		t.Errorf("another user's runs directory: %v", err)
	}
}

// TestPrivateFiles: a run directory is 0700 and its files 0600.
func TestPrivateFiles(t *testing.T) {
	r, err := Open(t.TempDir()).Create(Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.WriteCheckpoint(&core.State{W: []float64{1}, S: []float64{1}, WM: []float64{0}, WV: []float64{0}, SM: []float64{0}, SV: []float64{0}})
	for name, want := range map[string]os.FileMode{"": 0o700, ConfigFile: 0o600, LockFile: 0o600, CheckpointFile: 0o600} {
		fi, err := os.Stat(r.Path(name))
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%q: mode %v %v, want %v", name, fi.Mode().Perm(), err, want)
		}
	}
}

// TestConfigSchema: run.json is snake_case throughout, and a run.json of
// maple 0.1 (Go field names) still reads.
func TestConfigSchema(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir).Create(DefaultConfig("synthetic"))
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	b, _ := os.ReadFile(r.Path(ConfigFile))
	for _, goName := range []string{"OuterIters", "InnerLR", "EvalEvery", `"CSV"`, `"Label"`} {
		if strings.Contains(string(b), goName) {
			t.Errorf("run.json holds the Go name %s:\n%s", goName, b)
		}
	}
	old := `{"id": "x", "method": "maple", "dataset": {"name": "features", "columns": {"Label": "y", "CSV": "t.csv"}},
		"settings": {"Model": "linear", "OuterIters": 7, "InnerLR": 0.5, "SelectIterate": ""}, "eval": {"Steps": 9, "LR": 0.2}}`
	os.WriteFile(r.Path(ConfigFile), []byte(old), 0o600)
	c, err := ReadConfig(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Settings.OuterIters != 7 || c.Settings.InnerLR != 0.5 || c.Settings.Model != "linear" || c.Eval.Steps != 9 || c.Eval.LR != 0.2 || c.Dataset.Columns.Label != "y" {
		t.Errorf("maple 0.1 run.json read as %+v", c)
	}
}

func TestInfoJSON(t *testing.T) {
	b, _ := json.Marshal(Info{ID: "x", BestVal: -1, TestWorst: -1, TestAcc: 0.5, Seed: 3, Model: "linear"})
	for _, want := range []string{`"best_val_worst_group_acc":null`, `"test_worst_group_acc":null`, `"test_acc":0.5`, `"seed":3`, `"model":"linear"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("ls --json line %s lacks %s", b, want)
		}
	}
}

// TestLockEdgeCases: a deleted lock file neither hides a run nor lets a
// second process write it; leftover temporary files are cleaned when the
// run is opened; Create leaves no work directory behind.
func TestLockEdgeCases(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir).Create(Config{Method: "maple", Settings: core.DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(r.Path(LockFile))
	if list, _ := Open(dir).List(); len(list) != 1 || list[0].Status != core.StatusRunning {
		t.Errorf("a run without its lock file: %+v", list)
	}
	if _, err := Open(dir).Open(r.Config.ID); !errors.Is(err, ErrLocked) {
		t.Errorf("a second writer got in: %v", err)
	}
	os.WriteFile(r.Path(".checkpoint.bin.tmp-123"), []byte("half"), 0o600)
	r.Close()
	r2, err := Open(dir).Open(r.Config.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, err := os.Stat(r2.Path(".checkpoint.bin.tmp-123")); !os.IsNotExist(err) {
		t.Error("a leftover temporary file was not cleaned")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".new-") {
			t.Errorf("Create left %s", e.Name())
		}
	}
}
