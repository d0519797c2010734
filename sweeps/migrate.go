package sweeps

import (
	"encoding/json"

	"github.com/maple-ood/maple/runs"
)

// SweepFormat is the format of a sweep's record (.sweeps/NAME.json) that
// this maple writes, in its format field. A record without the field is
// format 0: its cells' configs are run.json's format 0.
//
//   - 0: the records until the field.
//   - 1: the format field; each cell's config is at runs.ConfigFormat.
const SweepFormat = 1

// decodeSweep reads a sweep's record of any format this maple knows
// (path names it in errors) into the current SweepRecord, whose Format
// is SweepFormat; MigrateSweep upgrades an older one first.
func decodeSweep(path string, b []byte) (*SweepRecord, error) {
	var f struct {
		Format int `json:"format"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	if f.Format > SweepFormat {
		return nil, &runs.NewerFormatError{Path: path, Format: f.Format, Know: SweepFormat}
	}
	b, err := MigrateSweep(b, f.Format)
	if err != nil {
		return nil, err
	}
	var r SweepRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	r.Format = SweepFormat
	for i := range r.Cells {
		r.Cells[i].Config = runs.Upgraded(r.Cells[i].Config)
	}
	return &r, nil
}

// MigrateSweep upgrades the sweep record b, of format from, to the
// current format: the one place that knows a record's older formats.
func MigrateSweep(b []byte, from int) ([]byte, error) {
	if from >= 1 {
		return b, nil
	}
	// Format 0: the cells' configs are run.json's format 0.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		return b, err
	}
	var cells []map[string]json.RawMessage
	if c, ok := raw["cells"]; !ok || json.Unmarshal(c, &cells) != nil {
		return b, nil // the decoder says what is wrong
	}
	for _, c := range cells {
		if cfg, ok := c["config"]; ok {
			nc, err := runs.MigrateConfig(cfg, 0)
			if err != nil {
				return nil, err
			}
			c["config"] = nc
		}
	}
	nb, err := json.Marshal(cells)
	if err != nil {
		return nil, err
	}
	raw["cells"] = nb
	return json.Marshal(raw)
}
