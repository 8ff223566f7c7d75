package act

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Checks of a decoded step against the contract's schema nodes: fields the
// variant does not take, required fields, enums, consts and bounds. The
// rules between fields (written in the contract's descriptions) are in
// validate.go.

// maxSafeInt is the contract's "no upper bound" for integers.
const maxSafeInt = 1<<53 - 1

// step checks the top-level fields of s against its variant.
func (v *violations) step(vr *variant, s *Step) {
	eachField(reflect.ValueOf(s).Elem(), func(name string, f reflect.Value, _ bool) {
		if name == "action" {
			return
		}
		p, known := vr.props[name]
		if name == "ref" {
			p, known = refNode, true
		}
		switch {
		case f.IsZero():
			if vr.required[name] && name != "selector" { // a ref may stand in for selector
				v.add(name, "is required")
			}
		case !known:
			v.add(name, "is not a field of %s", s.Action)
		default:
			v.value(name, p, f)
		}
	})
}

// object checks the fields of a nested object (observe, offset, frame...)
// at path at; a field without omitempty is checked even when zero.
func (v *violations) object(at string, n node, val reflect.Value) {
	props, _ := n["properties"].(node)
	eachField(val, func(name string, f reflect.Value, optional bool) {
		if optional && f.IsZero() {
			return
		}
		p, known := props[name].(node)
		if !known {
			v.add(join(at, name), "is not a field of %s", at)
			return
		}
		v.value(join(at, name), p, f)
	})
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// value checks one present value against its schema node.
func (v *violations) value(at string, n node, f reflect.Value) {
	if f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return
		}
		f = f.Elem()
	}
	switch x := f.Interface().(type) {
	case Range:
		v.rangeOf(at, n, x)
		return
	case Expected:
		if x.Str != nil {
			v.value(at, branch(n, "string"), reflect.ValueOf(*x.Str))
		}
		return
	}
	switch f.Kind() {
	case reflect.String:
		v.str(at, n, f.String())
	case reflect.Int, reflect.Float64:
		v.number(at, n, f)
	case reflect.Bool:
		if c, ok := n["const"]; ok && c != f.Bool() {
			v.add(at, "may only be %v", c)
		}
	case reflect.Slice:
		v.items(at, n, f)
	case reflect.Struct:
		v.object(at, n, f)
	}
}

func (v *violations) str(at string, n node, s string) {
	if enum, ok := n["enum"].([]any); ok && !containsAny(enum, s) {
		v.add(at, "must be one of %s; got %q", joinAny(enum, ", "), s)
	}
	length := len([]rune(s))
	if lo, ok := n["minLength"].(float64); ok && float64(length) < lo {
		v.add(at, "must not be empty")
	}
	if hi, ok := n["maxLength"].(float64); ok && float64(length) > hi {
		v.add(at, "is longer than %s characters", numText(hi))
	}
}

func (v *violations) number(at string, n node, f reflect.Value) {
	x := float64(0)
	if f.Kind() == reflect.Int {
		x = float64(f.Int())
	} else {
		x = f.Float()
	}
	if consts := constsOf(n); consts != nil {
		if !containsAny(consts, x) {
			v.add(at, "must be %s; got %s", joinAny(consts, " or "), numText(x))
		}
		return
	}
	lo, hasLo := n["minimum"].(float64)
	hi, hasHi := n["maximum"].(float64)
	switch {
	case hasLo && hasHi && hi < maxSafeInt && (x < lo || x > hi):
		v.add(at, "must be between %s and %s; got %s", numText(lo), numText(hi), numText(x))
	case hasLo && x < lo:
		v.add(at, "must be %s or more", numText(lo))
	}
}

func (v *violations) items(at string, n node, f reflect.Value) {
	if lo, ok := n["minItems"].(float64); ok && float64(f.Len()) < lo {
		v.add(at, "must hold at least %s item(s)", numText(lo))
	}
	if hi, ok := n["maxItems"].(float64); ok && float64(f.Len()) > hi {
		v.add(at, "has more than %s items", numText(hi))
	}
	items, _ := n["items"].(node)
	for i := 0; i < f.Len(); i++ {
		v.value(fmt.Sprintf("%s[%d]", at, i), items, f.Index(i))
	}
}

// rangeOf checks a delay: a number or [min, max], both within the bounds of
// the contract's integer branch, min no greater than max.
func (v *violations) rangeOf(at string, n node, r Range) {
	b := branch(n, "integer")
	lo, _ := b["minimum"].(float64)
	hi, _ := b["maximum"].(float64)
	if float64(r.Min) < lo || float64(r.Max) > hi {
		v.add(at, "must be between %s and %s ms", numText(lo), numText(hi))
	}
	if r.Min > r.Max {
		v.add(at, "min %d is greater than max %d", r.Min, r.Max)
	}
}

// branch is the anyOf branch of the given type (n itself if it has none).
func branch(n node, typ string) node {
	for _, b := range anys(n["anyOf"]) {
		if bn, _ := b.(node); bn["type"] == typ {
			return bn
		}
	}
	return n
}

// constsOf lists the values of an anyOf of consts (click_count: 1 or 2).
func constsOf(n node) []any {
	var out []any
	for _, b := range anys(n["anyOf"]) {
		c, ok := b.(node)["const"]
		if !ok {
			return nil
		}
		out = append(out, c)
	}
	return out
}

// eachField calls fn for each JSON field of the struct val, those of
// embedded structs included, in declaration order.
func eachField(val reflect.Value, fn func(name string, f reflect.Value, optional bool)) {
	t := val.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			eachField(val.Field(i), fn)
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		fn(name, val.Field(i), strings.Contains(opts, "omitempty"))
	}
}

func containsAny(list []any, x any) bool {
	for _, e := range list {
		if e == x {
			return true
		}
	}
	return false
}

func joinAny(list []any, sep string) string {
	parts := make([]string, len(list))
	for i, e := range list {
		if f, ok := e.(float64); ok {
			parts[i] = numText(f)
		} else {
			parts[i] = fmt.Sprint(e)
		}
	}
	return strings.Join(parts, sep)
}

func numText(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
