package experiments

import "testing"

// TestFinalTraining names the recipe each row's final model trains by,
// as the tables' "final training" column shows it.
func TestFinalTraining(t *testing.T) {
	const preset = "eval-every 1; eval-lr 1; eval-min-step 1; eval-steps 200; eval-weight-decay 0"
	const shared = "eval-every 10; eval-lr 0.1; eval-min-step 0; eval-steps 500; eval-weight-decay 0.001"
	for _, c := range []struct {
		name, method, settings, want string
	}{
		{"maple at its defaults", "maple/irmv1", "", "chosen on validation"},
		{"maple/rex at its defaults", "maple/rex", "", "chosen on validation"},
		{"maple, the MAPLE code's alone", "maple/irmv1", "eval-also-shared false", "MAPLE code's"},
		{"maple, a training flag given", "maple/irmv1", "eval-steps 200", "MAPLE code's"},
		{"maple, the shared evaluation spelt out", "maple/irmv1", shared, "shared"},
		{"the reference preset", "maple/irmv1", "recipe maple-reference", "MAPLE code's"},
		{"erm", "erm", "", "shared"},
		{"erm trained as maple evaluates", "erm", preset, "MAPLE code's"},
		{"irmv1 at its paper's recipe", "irmv1", "", "own recipe"},
		{"erm at another rate", "erm", "eval-lr 0.5", "other"},
		{"a method this build does not know", "nosuch", "", "?"},
		// bf16 changes the search's products only, and the page must not
		// depend on whether this machine's CPU has bf16.
		{"maple with its search in bf16", "maple/irmv1", "precision bf16", "chosen on validation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := map[string]string{"dataset": "cmnist", "method": c.method, "settings": c.settings, "model": "mlp:390,390", "train_size": "0"}
			if got := FinalTraining(r); got != c.want {
				t.Errorf("FinalTraining = %q, want %q", got, c.want)
			}
		})
	}
}
