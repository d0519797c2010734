package nets

// EnvDefault is an environment variable that a native library of the
// backend reads once, when it is loaded, and the value maple gives it
// unless the environment already names one.
type EnvDefault struct {
	Name, Value string
	// Why the default, for `maple version`.
	Why string
}

// loadEnv lists the backend's load-time defaults; build tags add to it.
var loadEnv []EnvDefault

// LoadEnv returns the defaults the backend's native libraries need before
// they load (none in the pure-Go build). They can only take effect in a
// process that starts with them: package main re-executes itself with the
// missing ones set (internal/loadenv).
func LoadEnv() []EnvDefault { return append([]EnvDefault(nil), loadEnv...) }
