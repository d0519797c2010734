package baselines

import (
	"testing"

	"github.com/maple-ood/maple/core"
)

// TestSupervision pins what each method and objective reads beyond y; a
// method or objective added to a registry without an entry here fails,
// so that results tables never say "none" of a method that reads groups.
func TestSupervision(t *testing.T) {
	methods := map[string]core.Supervision{
		"erm": core.SupervisionNone, "oracle": core.SupervisionOracle, "irmv1": core.SupervisionEnvs, "rex": core.SupervisionEnvs,
		"groupdro": core.SupervisionGroups, "cvar": core.SupervisionNone, "jtt": core.SupervisionNone, "upweight": core.SupervisionGroups,
		"lff": core.SupervisionNone, "sparseirm": core.SupervisionEnvs, "sparseirm-rex": core.SupervisionEnvs, "mrm": core.SupervisionNone,
		"bayesirm": core.SupervisionEnvs, "bayesirm-code": core.SupervisionEnvs, "dfr": core.SupervisionValGroups,
	}
	objectives := map[string]core.Supervision{
		"irmv1": core.SupervisionEnvs, "irmv1b": core.SupervisionEnvs, "rex": core.SupervisionEnvs, "cvar": core.SupervisionNone,
		"worst-group": core.SupervisionGroups, "erm": core.SupervisionNone,
	}
	for _, m := range Methods() {
		if m == core.MethodMaple {
			continue
		}
		want, ok := methods[m]
		if !ok {
			t.Errorf("method %s: no expected supervision in this test", m)
			continue
		}
		if got := Supervision(m, ""); got != want {
			t.Errorf("method %s: supervision %q, want %q", m, got, want)
		}
	}
	for _, o := range core.Objectives() {
		want, ok := objectives[o]
		if !ok {
			t.Errorf("objective %s: no expected supervision in this test", o)
			continue
		}
		if got := Supervision(core.MethodMaple, o); got != want {
			t.Errorf("maple/%s: supervision %q, want %q", o, got, want)
		}
	}
	if !core.SupervisionOracle.UsesGroupLabels() || !core.SupervisionGroups.UsesGroupLabels() || !core.SupervisionValGroups.UsesGroupLabels() || core.SupervisionEnvs.UsesGroupLabels() || core.SupervisionNone.UsesGroupLabels() {
		t.Error("UsesGroupLabels: want true for groups (of either split) and oracle data only")
	}
}
