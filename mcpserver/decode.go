package mcpserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
)

// decode reads a tool's arguments into dst (a pointer to a flat struct with
// json tags) and refuses unknown fields and wrong types with an error that
// names the field and the rule — the SDK's own schema errors are too vague
// for an agent to correct itself.
func decode(raw json.RawMessage, dst any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return errs.Input("arguments", "must be a JSON object")
	}
	v := reflect.ValueOf(dst).Elem()
	byName := map[string]reflect.Value{}
	var allowed []string
	for i := 0; i < v.NumField(); i++ {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		byName[name] = v.Field(i)
		allowed = append(allowed, name)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, ok := byName[k]
		if !ok {
			return errs.Input(k, "unknown field").WithHint("allowed fields: %s", strings.Join(allowed, ", "))
		}
		if bytes.Equal(bytes.TrimSpace(fields[k]), []byte("null")) {
			return errs.Input(k, "must be %s, not null", kindName(f.Type())).WithHint("omit the field to use its default")
		}
		if err := json.Unmarshal(fields[k], f.Addr().Interface()); err != nil {
			return errs.Input(k, "must be %s", kindName(f.Type()))
		}
	}
	return nil
}

func kindName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "an integer"
	default:
		return "a " + t.Kind().String()
	}
}

func required(path, value string) error {
	if value == "" {
		return errs.Input(path, "is required")
	}
	return nil
}

func oneOf(path, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return errs.Input(path, "must be one of %s; got %q", strings.Join(allowed, ", "), value)
}

func between(path string, value *int, lo, hi int) error {
	if value != nil && (*value < lo || *value > hi) {
		return errs.Input(path, "must be between %d and %d; got %d", lo, hi, *value)
	}
	return nil
}

func orDefault(v *int, def int) int {
	if v == nil {
		return def
	}
	return *v
}

func boolOr(v *bool, def bool) bool {
	if v == nil {
		return def
	}
	return *v
}

// firstErr returns the first non-nil error, so checks read as a list.
func firstErr(checks ...error) error {
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}

func errInput(path, msg string) error { return errs.Input(path, "%s", msg) }
