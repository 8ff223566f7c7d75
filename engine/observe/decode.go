package observe

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"

	"github.com/tabwright/tabwright/engine/errs"
)

// jsonKind is the JSON type of a frozen field.
type jsonKind int

const (
	kindString jsonKind = iota
	kindNumber
	kindBool
	kindArray
	kindObject
)

func (k jsonKind) String() string {
	return [...]string{"a string", "a number", "true or false", "an array", "an object"}[k]
}

// frozen lists the schema's named fields with their types; required ones
// must be present in every version.
var frozen = map[string]struct {
	kind     jsonKind
	required bool
}{
	"schemaversion": {kindNumber, true},
	"url":           {kindString, true},
	"title":         {kindString, true},
	"textpreview":   {kindString, true},
	"textlength":    {kindNumber, true},
	"forms":         {kindArray, true},
	"interactive":   {kindArray, true},
	"capturedat":    {kindNumber, true},
	"environment":   {kindString, false},
	"mode":          {kindString, false},
	"a11y":          {kindObject, false},
	"reader":        {kindObject, false},
	"listpattern":   {kindArray, false},
	"tableshape":    {kindArray, false},
	"diff":          {kindObject, false},
	"delta":         {kindBool, false},
	"digest":        {kindString, false},
	"vision":        {kindObject, false},
	"reserved":      {kindObject, false},
}

// ReservedUndecoded is the Reserved key under which Decode keeps, raw, the
// sections whose inner shape it could not read (a later version may have
// changed what their entries carry).
const ReservedUndecoded = "undecoded"

// Decode reads an observation of this or any later schema version. It
// refuses a payload that is not a JSON object, whose schemaversion is below
// 1, or that lacks or retypes one of the schema's named fields; errors are
// invalid_input with the field as path. Top-level fields the schema does not
// name are moved into Reserved (a name Reserved already uses is kept there
// under "toplevel.<name>"). A section whose entries do not decode into this
// version's types is kept raw under Reserved["undecoded"] and left empty.
func Decode(raw []byte) (*Observation, error) {
	known, unknown, err := splitTopLevel(raw)
	if err != nil {
		return nil, err
	}
	var version float64
	if err := json.Unmarshal(known["schemaversion"], &version); err != nil || version < 1 || math.IsInf(version, 0) {
		return nil, errs.Input("schemaversion", "must be a number >= 1, got %s", clip(string(known["schemaversion"]), 40))
	}
	o := &Observation{SchemaVersion: int(min(version, math.MaxInt32))}
	undecoded := o.decodeFields(known)
	o.typeReserved()
	for k, v := range unknown {
		var val any
		if json.Unmarshal(v, &val) != nil {
			continue
		}
		if _, taken := o.Reserved[k]; taken {
			k = "toplevel." + k
		}
		o.reserve(k, val)
	}
	if undecoded != nil {
		o.reserve(ReservedUndecoded, undecoded)
	}
	return o, nil
}

// splitTopLevel parses the payload's top level into the schema's named
// fields (each of its frozen kind, the version 1 ones all present) and the
// rest.
func splitTopLevel(raw []byte) (known, unknown map[string]json.RawMessage, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, nil, errs.Input("observation", "must be a JSON object")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, nil, errs.Input("observation", "is not valid JSON: %s", clip(err.Error(), 200))
	}
	known, unknown = map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for k, v := range top {
		f, ok := frozen[k]
		if !ok {
			unknown[k] = v
			continue
		}
		if kindOf(v) != f.kind {
			return nil, nil, errs.Input(k, "must be %s, got %s", f.kind, describe(v)).WithHint("a later schema version may add fields inside reserved, never retype a named one")
		}
		known[k] = v
	}
	for _, k := range []string{"schemaversion", "url", "title", "textpreview", "textlength", "forms", "interactive", "capturedat"} {
		if _, ok := known[k]; !ok {
			return nil, nil, errs.Input(k, "is required and missing").WithHint("a payload may not drop a field of schema version 1")
		}
	}
	return known, unknown, nil
}

// decodeFields fills o from the named fields; it returns those whose inner
// shape did not decode, raw (nil when all did).
func (o *Observation) decodeFields(known map[string]json.RawMessage) (undecoded map[string]json.RawMessage) {
	keep := func(name string) {
		if undecoded == nil {
			undecoded = map[string]json.RawMessage{}
		}
		undecoded[name] = known[name]
	}
	field(known, "url", &o.URL, keep)
	field(known, "title", &o.Title, keep)
	field(known, "textpreview", &o.TextPreview, keep)
	var n float64
	if json.Unmarshal(known["textlength"], &n) == nil {
		o.TextLength = int(clampInt(n))
	}
	if json.Unmarshal(known["capturedat"], &n) == nil {
		o.CapturedAt = clampInt(n)
	}
	field(known, "forms", &o.Forms, keep)
	field(known, "interactive", &o.Interactive, keep)
	field(known, "environment", &o.Environment, keep)
	field(known, "mode", &o.Mode, keep)
	field(known, "a11y", &o.A11y, keep)
	field(known, "reader", &o.Reader, keep)
	field(known, "listpattern", &o.ListPattern, keep)
	field(known, "tableshape", &o.TableShape, keep)
	field(known, "diff", &o.Diff, keep)
	field(known, "delta", &o.Delta, keep)
	field(known, "digest", &o.Digest, keep)
	field(known, "vision", &o.Vision, keep)
	field(known, "reserved", &o.Reserved, keep)
	if o.Forms == nil {
		o.Forms = []Form{}
	}
	if o.Interactive == nil {
		o.Interactive = []Element{}
	}
	return undecoded
}

// typeReserved gives the reserved entries this package writes their Go
// types back, so a decoded observation encodes (and digests) as it was;
// an entry with anything its type does not hold stays as it came.
func (o *Observation) typeReserved() {
	if t := o.Truncated(); t != nil && saysAll(o.Reserved[ReservedTruncated], t) {
		o.Reserved[ReservedTruncated] = t
	}
	if r := o.Repeated(); r != nil && saysAll(o.Reserved[ReservedRepeated], r) {
		o.Reserved[ReservedRepeated] = r
	}
}

// saysAll reports whether typed says all that generic (decoded JSON) does.
func saysAll(generic, typed any) bool {
	raw, err := json.Marshal(typed)
	var back any
	return err == nil && json.Unmarshal(raw, &back) == nil && reflect.DeepEqual(back, generic)
}

// field decodes the named member into dst only when all of it decodes, so a
// half-read section never shows up; otherwise keep(name) saves it raw.
func field[T any](known map[string]json.RawMessage, name string, dst *T, keep func(string)) {
	v, ok := known[name]
	if !ok {
		return
	}
	var out T
	if err := json.Unmarshal(v, &out); err != nil {
		keep(name)
		return
	}
	*dst = out
}

func clampInt(n float64) int64 {
	switch {
	case n != n:
		return 0
	case n > 1<<53:
		return 1 << 53
	case n < -(1 << 53):
		return -(1 << 53)
	}
	return int64(n)
}

func kindOf(v json.RawMessage) jsonKind {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return -1
	}
	switch v[0] {
	case '"':
		return kindString
	case '{':
		return kindObject
	case '[':
		return kindArray
	case 't', 'f':
		return kindBool
	case 'n':
		return -1
	}
	return kindNumber
}

func describe(v json.RawMessage) string {
	switch k := kindOf(v); k {
	case -1:
		return "null"
	default:
		return k.String()
	}
}
