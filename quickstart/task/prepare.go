package task

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// prepare builds the node for s, refusing any keyword it does not check:
// a keyword added to the schema must not be ignored silently.
func prepare(s *jsonschema.Schema, at string) (*node, error) {
	return (&preparer{resolved: map[string]*jsonschema.Resolved{}}).node(s, at)
}

// preparer resolves each distinct one-keyword schema once: the task schema
// says {"type": "string"} some twenty times.
type preparer struct {
	resolved map[string]*jsonschema.Resolved
}

func (pr *preparer) node(s *jsonschema.Schema, at string) (*node, error) {
	rest := *s
	// Annotations: nothing to check.
	rest.ID, rest.Schema, rest.Title, rest.Description, rest.Default, rest.Examples, rest.Comment = "", "", "", "", nil, nil, ""
	n := &node{s: s, props: map[string]*node{}}
	// In a draft-07 validator's order: the value's kind, then object,
	// array and string keywords, then the combinators.
	err := errors.Join(pr.kind(n, &rest, at), pr.object(n, &rest, at), pr.array(n, &rest, at), pr.str(n, &rest, at), pr.alternatives(n, &rest, at))
	if !reflect.ValueOf(rest).IsZero() {
		left, _ := json.Marshal(&rest)
		err = errors.Join(err, fmt.Errorf("%s: keywords not checked: %s", at, left))
	}
	return n, err
}

// add resolves one as n's check for kw; key, when not empty, names one's
// value so that an equal check is resolved once.
func (pr *preparer) add(n *node, at, kw string, final bool, key string, one *jsonschema.Schema) error {
	rs := pr.resolved[kw+"\x00"+key]
	if key == "" || rs == nil {
		one.Schema = draft7
		var err error
		if rs, err = one.Resolve(nil); err != nil {
			return fmt.Errorf("%s: %s: %w", at, kw, err)
		}
		if key != "" {
			pr.resolved[kw+"\x00"+key] = rs
		}
	}
	n.checks = append(n.checks, check{kw: kw, rs: rs, final: final})
	return nil
}

// bound adds the check of a numeric bound kw, when set.
func (pr *preparer) bound(n *node, at, kw string, v *int, one *jsonschema.Schema) error {
	if v == nil {
		return nil
	}
	return pr.add(n, at, kw, false, fmt.Sprint(*v), one)
}

// kind: type, const, enum and format; each is final.
func (pr *preparer) kind(n *node, rest *jsonschema.Schema, at string) error {
	s := n.s
	var err error
	if s.Type != "" || s.Types != nil {
		err = errors.Join(err, pr.add(n, at, "type", true, fmt.Sprint(s.Type, s.Types), &jsonschema.Schema{Type: s.Type, Types: s.Types}))
		rest.Type, rest.Types = "", nil
	}
	if s.Const != nil {
		err = errors.Join(err, pr.add(n, at, "const", true, "", &jsonschema.Schema{Const: s.Const}))
		rest.Const = nil
	}
	if s.Enum != nil {
		err = errors.Join(err, pr.add(n, at, "enum", true, "", &jsonschema.Schema{Enum: s.Enum}))
		rest.Enum = nil
	}
	if s.Format != "" {
		if s.Format != "uri" {
			err = errors.Join(err, fmt.Errorf("%s: format %q is not checked", at, s.Format))
		}
		n.checks = append(n.checks, check{kw: "format", final: true})
		rest.Format = ""
	}
	return err
}

// object: property counts, required, properties, additionalProperties.
func (pr *preparer) object(n *node, rest *jsonschema.Schema, at string) error {
	s := n.s
	err := errors.Join(
		pr.bound(n, at, "minProperties", s.MinProperties, &jsonschema.Schema{MinProperties: s.MinProperties}),
		pr.bound(n, at, "maxProperties", s.MaxProperties, &jsonschema.Schema{MaxProperties: s.MaxProperties}))
	rest.MinProperties, rest.MaxProperties = nil, nil
	if s.Required != nil {
		err = errors.Join(err, pr.add(n, at, "required", false, strings.Join(s.Required, "\x00"), &jsonschema.Schema{Required: s.Required}))
		rest.Required = nil
	}
	for name, ps := range s.Properties {
		c, e := pr.node(ps, at+"/properties/"+name)
		n.props[name], err = c, errors.Join(err, e)
	}
	rest.Properties = nil
	a := s.AdditionalProperties
	rest.AdditionalProperties = nil
	switch {
	case a == nil:
	case isFalse(a):
		// The one-keyword schema needs the known names to say which
		// others are unknown.
		known := map[string]*jsonschema.Schema{}
		for name := range s.Properties {
			known[name] = &jsonschema.Schema{}
		}
		err = errors.Join(err, pr.add(n, at, "additionalProperties", false, "", &jsonschema.Schema{Properties: known, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}))
	default:
		var e error
		n.extra, e = pr.node(a, at+"/additionalProperties")
		err = errors.Join(err, e)
	}
	return err
}

// array: item counts and items.
func (pr *preparer) array(n *node, rest *jsonschema.Schema, at string) error {
	s := n.s
	err := errors.Join(
		pr.bound(n, at, "minItems", s.MinItems, &jsonschema.Schema{MinItems: s.MinItems}),
		pr.bound(n, at, "maxItems", s.MaxItems, &jsonschema.Schema{MaxItems: s.MaxItems}))
	rest.MinItems, rest.MaxItems = nil, nil
	if s.Items != nil {
		var e error
		n.items, e = pr.node(s.Items, at+"/items")
		err = errors.Join(err, e)
		rest.Items = nil
	}
	return err
}

// str: lengths and pattern.
func (pr *preparer) str(n *node, rest *jsonschema.Schema, at string) error {
	s := n.s
	err := errors.Join(
		pr.bound(n, at, "minLength", s.MinLength, &jsonschema.Schema{MinLength: s.MinLength}),
		pr.bound(n, at, "maxLength", s.MaxLength, &jsonschema.Schema{MaxLength: s.MaxLength}))
	rest.MinLength, rest.MaxLength = nil, nil
	if s.Pattern != "" {
		err = errors.Join(err, pr.add(n, at, "pattern", false, s.Pattern, &jsonschema.Schema{Pattern: s.Pattern}))
		rest.Pattern = ""
	}
	return err
}

// alternatives: anyOf or oneOf (not both), as a check and as branches.
func (pr *preparer) alternatives(n *node, rest *jsonschema.Schema, at string) error {
	s := n.s
	var err error
	for _, c := range []struct {
		kw       string
		branches []*jsonschema.Schema
		one      *jsonschema.Schema
	}{{"anyOf", s.AnyOf, &jsonschema.Schema{AnyOf: s.AnyOf}}, {"oneOf", s.OneOf, &jsonschema.Schema{OneOf: s.OneOf}}} {
		if c.branches == nil {
			continue
		}
		if n.alts != nil {
			err = errors.Join(err, fmt.Errorf("%s: both anyOf and oneOf", at))
			continue
		}
		err = errors.Join(err, pr.add(n, at, c.kw, false, "", c.one))
		n.altsKw = c.kw
		for i, b := range c.branches {
			bn, e := pr.node(b, fmt.Sprintf("%s/%s/%d", at, c.kw, i))
			n.alts, err = append(n.alts, bn), errors.Join(err, e)
		}
	}
	rest.AnyOf, rest.OneOf = nil, nil
	return err
}

// isFalse reports whether s is the schema false, which jsonschema-go reads
// as {"not": {}}.
func isFalse(s *jsonschema.Schema) bool {
	if s.Not == nil || !reflect.ValueOf(*s.Not).IsZero() {
		return false
	}
	rest := *s
	rest.Not = nil
	return reflect.ValueOf(rest).IsZero()
}
