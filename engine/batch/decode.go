package batch

// Strict decoding of the batch contract's objects (and of the tool arguments
// that reuse its step fields): unknown, repeated and empty fields and wrong
// types are refused with an error that names the field path and the rule.
// Generic JSON errors are too vague for an agent to correct itself, and a
// batch must report every bad step.

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
)

// DecodeStrict decodes the JSON object raw into dst (a pointer to a flat
// struct with json tags), accepting only the fields named in only (all of
// dst's fields when only is nil). Every error path starts with at ("" at the
// top, "steps[3]." inside a batch).
func DecodeStrict(at string, raw json.RawMessage, dst any, only []string) error {
	return decodeAt(at, raw, reflect.ValueOf(dst).Elem(), only)
}

// decodeAt decodes the JSON object raw into the struct v; at is the path of
// the object ("" at the top, "observe." inside a nested one).
func decodeAt(at string, raw json.RawMessage, v reflect.Value, only []string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	fields, keys, err := objectFields(raw)
	if err != nil {
		if at != "" {
			return errs.Input(strings.TrimSuffix(at, "."), "must be an object")
		}
		return err
	}
	byName := map[string]reflect.Value{}
	order := structFields(v, byName)
	allowed := only
	if allowed == nil {
		allowed = order
	}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for _, k := range keys {
		f, found := byName[k]
		if !found || !ok[k] {
			return errs.Input(at+fieldPath(k), "unknown field %q", k).WithHint("allowed fields: %s", strings.Join(allowed, ", "))
		}
		if err := setField(at+k, f, fields[k]); err != nil {
			return err
		}
	}
	if at != "" {
		if missing := requiredMissing(v, fields); missing != "" {
			return errs.Input(at+missing, "is required")
		}
	}
	return nil
}

// requiredMissing names the first field of a nested object that its struct
// marks required (a json tag without omitempty) and the input lacks.
func requiredMissing(v reflect.Value, fields map[string]json.RawMessage) string {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || strings.Contains(opts, "omitempty") {
			continue
		}
		if _, ok := fields[name]; !ok {
			return name
		}
	}
	return ""
}

// structFields maps JSON names to the fields of v, including those of
// embedded structs, and returns the names in declaration order.
func structFields(v reflect.Value, into map[string]reflect.Value) []string {
	var order []string
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			order = append(order, structFields(v.Field(i), into)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		into[name] = v.Field(i)
		order = append(order, name)
	}
	return order
}

// objectFields splits a JSON object into its members, in sorted key order,
// refusing anything that is not an object and any key given twice (which
// encoding/json would silently resolve to the last).
func objectFields(raw []byte) (map[string]json.RawMessage, []string, error) {
	notObject := errs.Input("arguments", "must be a JSON object")
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, notObject
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return nil, nil, notObject
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, nil, notObject
		}
		if _, dup := fields[key]; dup {
			return nil, nil, errs.Input(fieldPath(key), "is given twice").WithHint("give each field once")
		}
		fields[key] = value
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, nil, notObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, notObject
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return fields, keys, nil
}

// fieldPath is the error path for an argument key: the key itself when it
// looks like one of ours, else "arguments", so that odd keys (empty, or with
// line breaks) cannot blank or forge the path an agent reads.
func fieldPath(key string) string {
	if key == "" {
		return "arguments"
	}
	for _, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "arguments"
		}
	}
	return key
}

// setField decodes one argument into f. Every string field of ours means
// "not given" when empty, so an empty string is refused rather than read as
// the default; whole numbers written as 4000.0 or 4e3 count as integers, as
// in JSON Schema.
func setField(key string, f reflect.Value, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	t := f.Type()
	if bytes.Equal(raw, []byte("null")) {
		return errs.Input(key, "must be %s, not null", kindName(t)).WithHint("omit the field to use its default")
	}
	base := t
	if base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if base.Kind() == reflect.Struct && !reflect.PointerTo(base).Implements(unmarshalerType) {
		nested := reflect.New(base)
		if err := decodeAt(key+".", raw, nested.Elem(), nil); err != nil {
			return err
		}
		if t.Kind() == reflect.Pointer {
			f.Set(nested)
		} else {
			f.Set(nested.Elem())
		}
		return nil
	}
	switch base.Kind() {
	case reflect.Int:
		var n float64
		if err := json.Unmarshal(raw, &n); err != nil || n != math.Trunc(n) {
			return errs.Input(key, "must be an integer")
		}
		if math.Abs(n) > 1<<53 {
			return errs.Input(key, "is out of range: %s", raw)
		}
		iv := reflect.New(base).Elem()
		iv.SetInt(int64(n))
		if t.Kind() == reflect.Pointer {
			p := reflect.New(base)
			p.Elem().Set(iv)
			f.Set(p)
		} else {
			f.Set(iv)
		}
		return nil
	case reflect.String:
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return errs.Input(key, "must be a string")
		}
		if t.Kind() == reflect.Pointer {
			// An optional text that may be empty: "" is a value (clear the
			// field, match an empty accessible name).
			p := reflect.New(base)
			p.Elem().SetString(str)
			f.Set(p)
			return nil
		}
		if str == "" {
			return errs.Input(key, "must not be empty").WithHint("omit the field to use its default")
		}
		f.SetString(str)
		return nil
	}
	if err := json.Unmarshal(raw, f.Addr().Interface()); err != nil {
		return errs.Input(key, "must be %s", kindName(t))
	}
	return nil
}

var unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// kinded is a type that names the JSON shapes it accepts.
type kinded interface{ Kind() string }

func kindName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if k, ok := reflect.New(t).Elem().Interface().(kinded); ok {
		return k.Kind()
	}
	switch t.Kind() {
	case reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(kindName(t.Elem()), "a ") + "s"
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

// Fields splits a JSON object into its members and their keys in sorted
// order, refusing anything that is not an object and any key given twice.
func Fields(raw json.RawMessage) (map[string]json.RawMessage, []string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	return objectFields(raw)
}
