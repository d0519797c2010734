// Package legacyjson reads JSON objects written before a struct's fields
// had snake_case tags: keys spelled as the Go field names ("OuterIters")
// are renamed to the fields' tags ("outer_iters").
package legacyjson

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Rename returns the JSON object b with every key that matches a Go
// field name of struct type t renamed to that field's JSON tag (a key
// already present under the tag wins). Anything but an object is
// returned as it is.
func Rename(b []byte, t reflect.Type) ([]byte, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		return b, nil
	}
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
	if !renamed {
		return b, nil
	}
	return json.Marshal(raw)
}
