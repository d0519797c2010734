package registry

import (
	"slices"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := New[int]("number")
	r.Register("two", 2)
	r.Register("one", 1)
	if got, want := r.Names(), []string{"two", "one"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v (the order registered)", got, want)
	}
	if got, want := r.Values(), []int{2, 1}; !slices.Equal(got, want) {
		t.Errorf("Values() = %v, want %v", got, want)
	}
	names := r.Names()
	names[0] = "changed"
	if r.Names()[0] != "two" {
		t.Error("changing the slice Names returned changed the registry")
	}
	for _, tc := range []struct {
		name string
		want int
		ok   bool
	}{{"one", 1, true}, {"two", 2, true}, {"three", 0, false}} {
		if v, ok := r.Lookup(tc.name); v != tc.want || ok != tc.ok {
			t.Errorf("Lookup(%q) = %d, %v; want %d, %v", tc.name, v, ok, tc.want, tc.ok)
		}
	}
}

func TestRegisterPanics(t *testing.T) {
	for _, tc := range []struct{ name, register string }{
		{"a duplicate", "one"},
		{"no name", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New[int]("number")
			r.Register("one", 1)
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", tc.register)
				}
			}()
			r.Register(tc.register, 2)
		})
	}
}
