package loaders

import (
	"slices"
	"strings"
	"testing"
)

// TestSources: the registry's names are unique and are Names; an option
// only some datasets read is refused for the others with their names,
// and blanked by Effective.
func TestSources(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range Names() {
		if seen[n] {
			t.Errorf("dataset %s registered twice", n)
		}
		seen[n] = true
	}
	if err := (Spec{Name: "no-such"}).Check(); err == nil || !strings.Contains(err.Error(), strings.Join(Names(), ", ")) {
		t.Errorf("unknown dataset: %v, want the registry's names", err)
	}
	if got := reading("Envs"); !slices.Equal(got, []string{"cmnist"}) {
		t.Errorf("Envs read by %v, want cmnist", got)
	}
	d := DefaultSpec("synthetic")
	d.Envs = EnvsParity
	if err := d.Check(); err == nil || !strings.Contains(err.Error(), "--cmnist-envs applies to the cmnist dataset only, not synthetic") {
		t.Errorf("--cmnist-envs on synthetic: %v", err)
	}
	if e := (Spec{Name: "cmnist", ImageSize: 32, Columns: DefaultFeatures()}).Effective(); e.ImageSize != 0 || e.Columns != (FeaturesConfig{}) {
		t.Errorf("cmnist's effective spec keeps options it does not read: %+v", e)
	}
	if e := (Spec{Name: "waterbirds"}).Effective(); e.ImageSize != 64 || e.LabelNoise != 0 {
		t.Errorf("waterbirds' effective spec: image size %d, label noise %g; want 64, 0", e.ImageSize, e.LabelNoise)
	}
}
