package runs

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/maple-ood/maple/internal/legacyjson"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/record"
)

// ConfigFormat is the format of run.json that this maple writes, in its
// format field. A run.json without the field is format 0.
//
//   - 0: maple 0.1 and the runs after it until the field. maple 0.1
//     spelled the keys of settings, eval and dataset.columns as Go field
//     names (OuterIters) instead of snake_case (outer_iters).
//   - 1: the format field; snake_case keys throughout.
//
// Format is no part of Hash: a run's hash is the same in every format.
const ConfigFormat = 1

// NewerFormatError is a record written by a newer maple, in a format this
// one does not know.
type NewerFormatError struct {
	Path         string
	Format, Know int
}

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("%s has format %d, and this maple reads formats up to %d: read it with the newer maple that wrote it", e.Path, e.Format, e.Know)
}

// formatOf reads the format field of the JSON object b (0 without one).
func formatOf(b []byte) (int, error) {
	var f struct {
		Format int `json:"format"`
	}
	err := json.Unmarshal(b, &f)
	return f.Format, err
}

// DecodeConfig reads a run.json (path names it in errors) of any format
// this maple knows into the current Config: MigrateConfig upgrades an
// older one's keys first, and Upgraded its values after.
func DecodeConfig(path string, b []byte) (*Config, error) {
	from, err := formatOf(b)
	if err != nil {
		return nil, err
	}
	if from > ConfigFormat {
		return nil, &NewerFormatError{Path: path, Format: from, Know: ConfigFormat}
	}
	if b, err = MigrateConfig(b, from); err != nil {
		return nil, err
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	c = Upgraded(c)
	return &c, nil
}

// Upgraded returns c, decoded from a record of any format, as this maple
// makes a config: format ConfigFormat, its settings canonical
// (record.Settings.Canonical: an outer scale of 1, which runs made before
// Create put settings in that form may record, reads as 0). A sweep's
// record upgrades its cells' configs through it.
func Upgraded(c Config) Config {
	c.Format = ConfigFormat
	c.Settings = c.Settings.Canonical()
	return c
}

// MigrateConfig upgrades the run.json object b, of format from, to the
// current format's keys. It is the one place that knows the older
// formats; a sweep's record migrates its cells' configs through it.
func MigrateConfig(b []byte, from int) ([]byte, error) {
	if from >= 1 {
		return b, nil
	}
	// Format 0: maple 0.1's Go field names in settings, eval and
	// dataset.columns.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		return b, err
	}
	changed := false
	rename := func(obj map[string]json.RawMessage, key string, t reflect.Type) error {
		v, ok := obj[key]
		if !ok {
			return nil
		}
		nv, err := legacyjson.Rename(v, t)
		if err != nil {
			return err
		}
		if string(nv) != string(v) {
			obj[key], changed = nv, true
		}
		return nil
	}
	if err := rename(raw, "settings", reflect.TypeFor[record.Settings]()); err != nil {
		return nil, err
	}
	if err := rename(raw, "eval", reflect.TypeFor[record.EvalSettings]()); err != nil {
		return nil, err
	}
	if d, ok := raw["dataset"]; ok {
		var ds map[string]json.RawMessage
		if json.Unmarshal(d, &ds) == nil && ds != nil {
			before := changed
			changed = false
			if err := rename(ds, "columns", reflect.TypeFor[loaders.FeaturesConfig]()); err != nil {
				return nil, err
			}
			if changed {
				nd, err := json.Marshal(ds)
				if err != nil {
					return nil, err
				}
				raw["dataset"] = nd
			}
			changed = changed || before
		}
	}
	if !changed {
		return b, nil
	}
	return json.Marshal(raw)
}
