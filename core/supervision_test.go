package core

import "testing"

// TestSupervision pins what each method and objective reads beyond y; a
// method or objective added to a registry without an entry here fails,
// so that results tables never say "none" of a method that reads groups.
func TestSupervision(t *testing.T) {
	methods := map[string]Supervision{
		"erm": SupervisionNone, "oracle": SupervisionOracle, "irmv1": SupervisionEnvs, "rex": SupervisionEnvs,
		"groupdro": SupervisionGroups, "cvar": SupervisionNone, "jtt": SupervisionNone, "upweight": SupervisionGroups,
		"lff": SupervisionNone, "sparseirm": SupervisionEnvs, "sparseirm-rex": SupervisionEnvs, "mrm": SupervisionNone,
		"bayesirm": SupervisionEnvs, "bayesirm-code": SupervisionEnvs,
	}
	objectives := map[string]Supervision{
		"irmv1": SupervisionEnvs, "irmv1b": SupervisionEnvs, "rex": SupervisionEnvs, "cvar": SupervisionNone,
		"worst-group": SupervisionGroups, "erm": SupervisionNone,
	}
	for _, m := range Methods {
		if m == MethodMaple {
			continue
		}
		want, ok := methods[m]
		if !ok {
			t.Errorf("method %s: no expected supervision in this test", m)
			continue
		}
		if got := MethodSupervision(m, ""); got != want {
			t.Errorf("method %s: supervision %q, want %q", m, got, want)
		}
	}
	for _, o := range Objectives {
		want, ok := objectives[o]
		if !ok {
			t.Errorf("objective %s: no expected supervision in this test", o)
			continue
		}
		if got := MethodSupervision(MethodMaple, o); got != want {
			t.Errorf("maple/%s: supervision %q, want %q", o, got, want)
		}
	}
	if !SupervisionOracle.UsesGroupLabels() || !SupervisionGroups.UsesGroupLabels() || SupervisionEnvs.UsesGroupLabels() || SupervisionNone.UsesGroupLabels() {
		t.Error("UsesGroupLabels: want true for groups and oracle data only")
	}
}
