// Package legacyjson reads JSON objects written before a struct's fields
// had snake_case tags: keys spelled as the Go field names ("OuterIters")
// are renamed to the fields' tags ("outer_iters") before decoding, so that
// run directories made by earlier versions still load.
package legacyjson

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Unmarshal decodes b into the struct *v (whose type must be an alias of
// the tagged struct, to avoid recursing into its UnmarshalJSON), renaming
// keys that match a field's Go name to that field's JSON tag.
func Unmarshal(b []byte, v any) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		return json.Unmarshal(b, v)
	}
	t := reflect.TypeOf(v).Elem()
	renamed := false
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "" || tag == "-" || tag == f.Name {
			continue
		}
		if val, ok := raw[f.Name]; ok {
			if _, has := raw[tag]; !has {
				raw[tag] = val
			}
			delete(raw, f.Name)
			renamed = true
		}
	}
	if renamed {
		var err error
		if b, err = json.Marshal(raw); err != nil {
			return err
		}
	}
	return json.Unmarshal(b, v)
}
