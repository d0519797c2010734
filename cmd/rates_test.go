package cmd

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestRatesBounded: a learning rate above setting.MaxRate (--inner-lr
// 1e308 was taken, and the run made, then failed with exit 1) is a usage
// error naming the flag and the range, before anything is created.
func TestRatesBounded(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"inner lr", []string{"--inner-lr", "1e308"}, "--inner-lr 1e+308: want a finite number in (0, 10]"},
		{"keep lr", []string{"--keep-lr", "1e308"}, "--keep-lr 1e+308: want a finite number in (0, 10]"},
		{"weight lr", []string{"--weight-lr", "11"}, "--weight-lr 11: want a finite number in [0, 10]"},
		{"eval lr", []string{"--method", "erm", "--eval-lr", "1e308"}, "--eval-lr 1e+308: want a finite number in (0, 10]"},
		{"mask lr", []string{"--method", "bayesirm", "--mask-lr", "100"}, "--mask-lr 100: want a finite number in [0, 10]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var out bytes.Buffer
			f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: dir, Terminal: func() bool { return false }}
			root := NewCmdRoot(f)
			root.SetArgs(append(append([]string{"run"}, c.args...), "--runs-dir", dir))
			if code := ExitCode(f, root.Execute()); code != ExitUsage || !strings.Contains(out.String(), c.want) {
				t.Errorf("exit %d, %q; want %d and %q", code, out.String(), ExitUsage, c.want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Errorf("the runs directory holds %v", ents)
			}
		})
	}
}
