package record_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/record"
	"github.com/maple-ood/maple/record/run"
)

// TestRegistered: what record knows of the registries above it is what
// they hold: each objective's name and scale as core has it, and which
// methods search, with their labels, as baselines has them.
func TestRegistered(t *testing.T) {
	if got, want := record.Objectives(), core.Objectives(); !slices.Equal(got, want) {
		t.Errorf("record.Objectives() = %v, want core's %v", got, want)
	}
	for _, name := range append(core.Objectives(), "none") {
		if got, want := record.ObjectiveScale(name), core.ObjectiveScale(name); got != want {
			t.Errorf("record.ObjectiveScale(%q) = %g, want core's %g", name, got, want)
		}
	}
	for _, m := range baselines.Methods() {
		c := run.Config{Method: m, Settings: record.Settings{Objective: "rex"}}
		s, searches := baselines.SearcherOf(m)
		if c.Searches() != searches {
			t.Errorf("Config{Method: %q}.Searches() = %v, want %v", m, c.Searches(), searches)
		}
		want := m
		if searches {
			want = s.Label("rex")
		}
		if got := c.MethodName(); got != want {
			t.Errorf("Config{Method: %q}.MethodName() = %q, want %q", m, got, want)
		}
	}
}

// TestDefaults: the defaults record gives are the ones core and train
// document, irmv1's scale of the outer risk among them.
func TestDefaults(t *testing.T) {
	tests := []struct {
		name      string
		got, want any
	}{
		{"outer scale is irmv1's", record.DefaultSettings().OuterScale, core.ObjectiveScale("irmv1")},
		{"objective", record.DefaultSettings().Objective, "irmv1"},
		{"search model", record.DefaultSettings().Model, "mlp:390,390"},
		{"eval steps", record.DefaultEval().Steps, 500},
		{"eval optimizer", record.DefaultEval().ResolvedOptimizer(), "sgd"},
		{"config method", run.DefaultConfig("cmnist").Method, "maple"},
		{"config eval model is the search model", run.DefaultConfig("synthetic").Eval.Model, run.DefaultConfig("synthetic").Settings.Model},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

// TestCoreLinksNoNetwork: record, which core imports, holds no type that
// reaches the data loaders (and their downloads, net/http); run.json's
// Config, which names a dataset, is in record/run.
func TestCoreLinksNoNetwork(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/maple-ood/maple/record", "github.com/maple-ood/maple/core").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "net/http" || dep == "github.com/maple-ood/maple/loaders" {
			t.Errorf("record or core links %s", dep)
		}
	}
}
