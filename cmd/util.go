package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/maple-ood/maple/runs"
)

// writeJSON writes v as indented JSON on f's output.
func writeJSON(f *Factory, v any) error {
	enc := json.NewEncoder(f.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// warnTo returns a function that writes a warning on f's error stream.
func warnTo(f *Factory) func(string) {
	return func(m string) { fmt.Fprintln(f.Err, "maple: warning:", m) }
}

// runDir returns the directory of run id (runs.Find), a usage error when
// there is none.
func runDir(f *Factory, id string) (string, error) {
	dir, err := runs.Find(f.RunsDir, id)
	if err != nil {
		return "", usageError{err}
	}
	return dir, nil
}

// plural is n and noun, with an s for any n but 1 ("1 running cell",
// "2 running cells").
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
