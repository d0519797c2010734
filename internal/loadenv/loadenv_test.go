package loadenv

import (
	"reflect"
	"testing"

	"github.com/maple-ood/maple/nets"
)

func TestMissing(t *testing.T) {
	defs := []nets.EnvDefault{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"none set", map[string]string{}, []string{"A=1", "B=2"}},
		{"one set", map[string]string{"B": "ACTIVE"}, []string{"A=1"}},
		{"set to empty is the user's choice", map[string]string{"A": "", "B": "x"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Missing(defs, func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Missing = %q, want %q", got, tc.want)
			}
		})
	}
}
