package schemas

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// A schema written out in full repeats itself: the batch contract states
// its frame, observe and locator fields once per step variant. Factor
// moves each property schema that occurs more than once, identical, into
// $defs and names it from every place with a local $ref, so the schema
// validates exactly what it did at a fraction of its size; Inline undoes
// it, for clients that do not resolve $ref.
//
// A $ref stands alone in its object: draft-07 ignores a $ref's siblings,
// so nothing may sit next to it.

const defsPrefix = "#/$defs/"

// Factor returns s with its repeated property schemas in $defs, the one
// that saves most characters first, until none saves any. Each def is
// named after its property, shortly (defName).
// s is a decoded JSON schema (maps, slices, strings, numbers, booleans); it
// is not modified.
func Factor(s map[string]any) map[string]any {
	out := deepCopy(s).(map[string]any)
	defs := map[string]any{}
	for {
		best, ok := bestRepeat(out)
		if !ok {
			break
		}
		name := defName(defs, best.name)
		defs[name] = decodeCanonical(best.canonical)
		out["$defs"] = defs
		for _, props := range best.parents {
			props[best.name] = map[string]any{"$ref": defsPrefix + name}
		}
	}
	return out
}

// Inline returns v with every local $ref replaced by a copy of the def it
// names, and $defs dropped: the schema Factor was given.
func Inline(v any) any {
	root, ok := v.(map[string]any)
	if !ok {
		return deepCopy(v)
	}
	defs, _ := root["$defs"].(map[string]any)
	return inline(v, defs, true)
}

func inline(v any, defs map[string]any, top bool) any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok && len(x) == 1 && strings.HasPrefix(ref, defsPrefix) {
			if def, ok := defs[strings.TrimPrefix(ref, defsPrefix)]; ok {
				return inline(def, defs, false)
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			if top && k == "$defs" {
				continue
			}
			out[k] = inline(e, defs, false)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = inline(e, defs, false)
		}
		return out
	}
	return v
}

// repeat is one property schema and the properties maps that hold it.
type repeat struct {
	name, canonical string
	parents         []map[string]any
}

// saving is how many characters factoring r saves: every copy but one
// becomes a $ref, and the one left moves into $defs under its name.
func (r repeat) saving() int {
	ref := len(`{"$ref":"` + defsPrefix + r.name + `"}`)
	return (len(r.parents)-1)*len(r.canonical) - len(r.parents)*ref - len(`"`+r.name+`":,`)
}

// bestRepeat finds the repeated property schema whose factoring saves most
// (ties: the name, then the schema, in byte order, so the result is the
// same on every run).
func bestRepeat(s map[string]any) (repeat, bool) {
	byKey := map[[2]string]*repeat{}
	collectProperties(s, func(props map[string]any, name string, p map[string]any) {
		if _, isRef := p["$ref"]; isRef {
			return
		}
		c := canonical(p)
		r := byKey[[2]string{name, c}]
		if r == nil {
			r = &repeat{name: name, canonical: c}
			byKey[[2]string{name, c}] = r
		}
		r.parents = append(r.parents, props)
	})
	var all []*repeat
	for _, r := range byKey {
		if len(r.parents) > 1 && r.saving() > 0 {
			all = append(all, r)
		}
	}
	if len(all) == 0 {
		return repeat{}, false
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.saving() != b.saving() {
			return a.saving() > b.saving()
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.canonical < b.canonical
	})
	return *all[0], true
}

// collectProperties calls fn for every property schema under a
// "properties" keyword, at any depth ($defs included).
func collectProperties(v any, fn func(props map[string]any, name string, p map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			for name, p := range props {
				if pm, ok := p.(map[string]any); ok {
					fn(props, name, pm)
				}
			}
		}
		for _, e := range x {
			collectProperties(e, fn)
		}
	case []any:
		for _, e := range x {
			collectProperties(e, fn)
		}
	}
}

// defName is the shortest free name for a def of property want: its
// words' initials ("selector_type": "st"), then more of its last word
// ("name" after "nth": "na"), then a number. Every $ref spells the name,
// so short names are most of what factoring saves; what a def is, its
// content says.
func defName(defs map[string]any, want string) string {
	words := strings.Split(want, "_")
	initials := ""
	for _, w := range words[:len(words)-1] {
		if w != "" {
			initials += w[:1]
		}
	}
	last := words[len(words)-1]
	for n := 1; n <= len(last); n++ {
		if name := initials + last[:n]; defs[name] == nil {
			return name
		}
	}
	name := want
	for n := 2; defs[name] != nil; n++ {
		name = want + strconv.Itoa(n)
	}
	return name
}

// canonical is v's compact JSON with sorted keys: equal for equal schemas.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("schemas: a decoded schema does not encode: " + err.Error())
	}
	return string(b)
}

func decodeCanonical(c string) any {
	var v any
	if err := json.Unmarshal([]byte(c), &v); err != nil {
		panic("schemas: " + err.Error())
	}
	return v
}

func deepCopy(v any) any { return decodeCanonical(canonical(v)) }
