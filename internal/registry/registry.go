// Package registry is the one registry maple's extension points share:
// the datasets (loaders), the methods (baselines), the outer objectives
// (core), the model families (models) and the gorgonia architectures
// (gmodel). Each holds its values by name, in the order they were
// registered (the order --help and completion show them).
package registry

import (
	"fmt"
	"sync"
)

// A Registry holds values of T by name. Registration happens at init; a
// Registry is safe for concurrent use all the same.
type Registry[T any] struct {
	what  string // what a value is, for the panic on a duplicate ("dataset")
	mu    sync.RWMutex
	names []string
	by    map[string]T
}

// New returns an empty registry of what ("dataset", "method").
func New[T any](what string) *Registry[T] {
	return &Registry[T]{what: what, by: map[string]T{}}
}

// Register adds v under name. It panics when name is empty or taken: a
// programming error, found at init.
func (r *Registry[T]) Register(name string, v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if name == "" {
		panic(fmt.Sprintf("%s registered without a name", r.what))
	}
	if _, ok := r.by[name]; ok {
		panic(fmt.Sprintf("%s %q registered twice", r.what, name))
	}
	r.names = append(r.names, name)
	r.by[name] = v
}

// Lookup returns the value registered under name.
func (r *Registry[T]) Lookup(name string) (T, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.by[name]
	return v, ok
}

// Names returns a copy of the names, in the order they were registered.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]string(nil), r.names...)
}

// Values returns the values, in the order they were registered.
func (r *Registry[T]) Values() []T {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]T, len(r.names))
	for i, n := range r.names {
		out[i] = r.by[n]
	}
	return out
}
