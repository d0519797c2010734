package core

import (
	"bytes"
	"os"
	"testing"
)

// TestEngineFileSize keeps engine.go to the engine's type, its state and
// its API: the maths (bilevel.go), the control loop (loop.go) and the
// metrics (metrics.go) live in files of their own.
func TestEngineFileSize(t *testing.T) {
	const most = 500
	b, err := os.ReadFile("engine.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > most {
		t.Errorf("engine.go has %d lines, at most %d: move a unit of it to a file of its own", n, most)
	}
}
