package export

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
)

// smallExport writes the exports of a three-sample search into a new
// directory: w = (1.5, 0.7, 2.25), the second sample dropped.
func smallExport(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out := &core.Output{W: []float64{1.5, 0.7, 2.25}, S: []float64{1, 0.5, 0.125}, Keep: []bool{true, false, true}, Iter: 4}
	train := &loaders.Dataset{ID: []int64{7, 8, 9}, Y: []int32{0, 1, 1}, Env: []int32{0, 0, 1}, Group: []int32{0, 3, 2},
		EnvNames: []string{"e0", "e1"}, GroupNames: []string{"g0", "g1", "g2", "g3"}}
	cfg := runs.Config{ID: "20261122-000000-01", Method: "maple", Settings: core.DefaultSettings(), Dataset: loaders.DefaultSpec("synthetic")}
	if err := WriteExports(dir, &cfg, core.StatusDone, 6, out, train); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestNumpyLoads checks that numpy.load reads the exports, where a Python
// with numpy is installed (.ci/run installs Debian's python3-numpy), and
// that u.npy holds what maple trains on: w where kept, 0 where dropped.
func TestNumpyLoads(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skip("no python3 with numpy")
	}
	dir := smallExport(t)
	script := `import numpy as np, sys, json
d = sys.argv[1]
u = np.load(d + "/u.npy"); w = np.load(d + "/weights.npy"); s = np.load(d + "/keep_prob.npy")
m = np.load(d + "/mask.npy"); ids = np.load(d + "/ids.npy")
assert u.dtype == np.float64 and u.shape == (3,) and list(u) == [1.5, 0, 2.25], u
assert list(w) == [1.5, 0.7, 2.25] and list(s) == [1, 0.5, 0.125], (w, s)
assert m.dtype == np.uint8 and list(m) == [1, 0, 1] and ids.dtype == np.int64 and list(ids) == [7, 8, 9], (m, ids)
c = np.genfromtxt(d + "/weights.csv", delimiter=",", names=True, dtype=None, encoding="utf-8")
assert list(c["sample_id"]) == [7, 8, 9] and list(c["kept"]) == [1, 0, 1] and list(c["u"]) == [1.5, 0, 2.25]
assert list(c["group_name"]) == ['"g0"', '"g3"', '"g2"'], c["group_name"]
e = json.load(open(d + "/export.json"))
assert e["train_with"] == "u.npy" and e["iterate"] == 4 and e["iteration"] == 6 and "validation-selected iterate 4" in e["which"], e
print("ok")`
	b, err := exec.Command(py, "-c", script, dir).CombinedOutput()
	if err != nil || strings.TrimSpace(string(b)) != "ok" {
		t.Errorf("numpy: %v\n%s", err, b)
	}
}

// TestReadmeTorchSnippet runs the README's PyTorch lines on an export
// with Debian's python3-torch (.ci/run installs it): the weighted loss is
// maple's, and the sampler never draws a dropped sample.
func TestReadmeTorchSnippet(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import torch").Run(); err != nil {
		t.Skip("no python3 with torch")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "<!-- torch snippet -->\n```python\n")
	snippet, _, ok2 := strings.Cut(rest, "```")
	const runLine = `run = os.path.expanduser("~/.local/share/maple/runs/ID")`
	if !ok || !ok2 || !strings.Contains(snippet, runLine) {
		t.Fatalf("README has no torch snippet with %s (the default runs directory)", runLine)
	}
	dir := smallExport(t)
	script := strings.Replace(snippet, runLine, fmt.Sprintf("run = %q", dir), 1) + `
import math
assert u.dtype == torch.float32, u.dtype  # what a trainer's losses are
n = len(u)
l = weighted_loss(torch.zeros(n, 2), torch.zeros(n, dtype=torch.long), torch.arange(n))
assert abs(l.item() - math.log(2)) < 1e-6, l
drawn = set(int(i) for i in torch.utils.data.WeightedRandomSampler(u, num_samples=2000))
assert drawn == {0, 2}, drawn
assert list(ids) == [7, 8, 9]
print("ok")`
	b, err := exec.Command(py, "-c", script).CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(b)), "ok") {
		t.Errorf("torch snippet: %v\n%s\n%s", err, script, b)
	}
}
