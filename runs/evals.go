package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/maple-ood/maple/record"
)

// WriteEval writes the result of `maple eval ID --model SPEC` into the
// run directory as eval-<spec>.json and returns its path.
func WriteEval(dir, model string, res *record.Result) (string, error) {
	name := "eval-" + strings.NewReplacer(":", "_", ",", "-").Replace(model) + ".json"
	path := filepath.Join(dir, name)
	return path, WriteJSONAtomic(path, res)
}

// EvalFile is one result of maple eval read back: the file's name and the
// result (its Model names the architecture).
type EvalFile struct {
	File   string
	Result record.Result
}

// ReadEvals reads the maple eval results stored beside the run in dir, in
// file-name order, and the files it could not read.
func ReadEvals(dir string) ([]EvalFile, []error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "eval-*.json"))
	var out []EvalFile
	var errs []error
	for _, p := range paths {
		var r record.Result
		b, err := os.ReadFile(p)
		if err == nil {
			err = json.Unmarshal(b, &r)
		}
		if err == nil && r.Model == "" {
			err = errors.New("no model named")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: damaged (%w)", filepath.Base(p), err))
			continue
		}
		out = append(out, EvalFile{File: filepath.Base(p), Result: r})
	}
	return out, errs
}
