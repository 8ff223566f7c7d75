package act

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
)

// Element actions act on one element and need a locator.
var elementActions = map[string]bool{Click: true, Fill: true, Hover: true, SelectOption: true, Drag: true, Upload: true}

// Wait conditions.
var (
	conditions        = []string{"attached", "absent", "visible", "actionable", "text", "value", "checked", "selected", "expanded", "url", "network_idle"}
	pageConditions    = map[string]bool{"url": true, "network_idle": true}
	expectedRequired  = map[string]bool{"url": true, "value": true, "checked": true, "selected": true, "expanded": true}
	booleanConditions = map[string]bool{"checked": true, "selected": true, "expanded": true}
)

// fieldsOf lists the fields each action takes besides the locator and the
// common ones (timeout_ms, dialog_policy, observe).
var fieldsOf = map[string][]string{
	Click:        {"button", "click_count", "mode", "modifiers", "offset", "settle_ms"},
	Fill:         {"text", "expected_value", "mode"},
	Type:         {"text", "delay_ms", "focused"},
	Hover:        {"offset"},
	SelectOption: {"value", "label", "index"},
	Scroll:       {"delta_x", "delta_y", "x", "y", "max_steps", "mode", "until"},
	Wait:         {"condition", "expected", "previous", "idle_ms"},
	PressKey:     {"key"},
	Drag:         {"to", "dx", "dy"},
	Upload:       {"files"},
}

var commonFields = []string{"action", "selector", "selector_type", "name", "nth", "ref", "frame", "frame_id", "timeout_ms", "dialog_policy", "observe"}

// Actions lists every action name.
func Actions() []string {
	out := make([]string, 0, len(fieldsOf))
	for a := range fieldsOf {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Validate checks the step's fields and the rules between them. It returns
// every violation, each with its path under prefix (e.g. "steps[3]").
func (s *Step) Validate(prefix string) []*errs.Error {
	v := &violations{prefix: prefix}
	allowed, ok := fieldsOf[s.Action]
	if !ok {
		v.add("action", "must be one of %s; got %q", strings.Join(Actions(), ", "), s.Action)
		return v.list
	}
	known := map[string]bool{}
	for _, f := range append(append([]string{}, commonFields...), allowed...) {
		known[f] = true
	}
	for _, f := range presentFields(s) {
		if !known[f] {
			v.add(f, "is not a field of %s", s.Action)
		}
	}

	hasLocator := s.Selector != "" || s.Ref != ""
	switch {
	case s.Action == Type:
		focused := s.Focused != nil && *s.Focused
		if s.Focused != nil && !*s.Focused {
			v.add("focused", "may only be true; omit it to type into a located element")
		}
		if focused == hasLocator {
			v.add("selector", "type needs a selector (or ref) or focused: true, not both and not neither")
		}
	case elementActions[s.Action] && !hasLocator:
		v.add("selector", "is required for %s", s.Action)
	case s.Action == Wait && pageConditions[s.Condition] && hasLocator:
		v.add("selector", "condition %s reads the page, not an element: remove the locator", s.Condition)
	case s.Action == Wait && s.Condition != "" && !pageConditions[s.Condition] && !hasLocator:
		v.add("selector", "condition %s needs a selector", s.Condition)
	}
	v.locator("", s.Locator)
	v.oneOf("dialog_policy", s.DialogPolicy, "ask", "accept", "dismiss")
	v.between("timeout_ms", s.TimeoutMS, 100, 30000)
	if s.Offset != nil {
		v.ratio("offset.x_ratio", s.Offset.XRatio)
		v.ratio("offset.y_ratio", s.Offset.YRatio)
	}

	switch s.Action {
	case Click:
		v.oneOf("button", s.Button, "left", "middle", "right")
		if s.ClickCount != nil && *s.ClickCount != 1 && *s.ClickCount != 2 {
			v.add("click_count", "must be 1 or 2; got %d", *s.ClickCount)
		}
		v.oneOf("mode", s.Mode, "native", "dom")
		seen := map[string]bool{}
		for i, m := range s.Modifiers {
			p := fmt.Sprintf("modifiers[%d]", i)
			if m != "Alt" && m != "Control" && m != "Meta" && m != "Shift" {
				v.add(p, "must be one of Alt, Control, Meta, Shift; got %q", m)
			} else if seen[m] {
				v.add(p, "%s is given twice", m)
			}
			seen[m] = true
		}
		if s.Mode == "dom" && ((s.Button != "" && s.Button != "left") || (s.ClickCount != nil && *s.ClickCount != 1) || len(s.Modifiers) > 0 || s.Offset != nil) {
			v.add("mode", "dom clicks are left, single, without modifiers or offset; use mode native for the rest")
		}
		v.rangeOK("settle_ms", s.SettleMS)
	case Fill:
		if s.Text == nil {
			v.add("text", "is required")
		}
		v.oneOf("mode", s.Mode, "native", "dom")
	case Type:
		if s.Text == nil {
			v.add("text", "is required")
		} else if len([]rune(*s.Text)) > 10000 {
			v.add("text", "is longer than 10000 characters")
		}
		v.rangeOK("delay_ms", s.DelayMS)
	case SelectOption:
		n := 0
		for _, set := range []bool{s.Value != nil, s.Label != nil, s.Index != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			v.add("value", "give exactly one of value, label and index")
		}
		if s.Index != nil && *s.Index < 0 {
			v.add("index", "must be 0 or more")
		}
	case Scroll:
		v.oneOf("mode", s.Mode, "dom", "wheel")
		if s.DeltaY == nil && s.Until == nil {
			v.add("delta_y", "is required unless until is given")
		}
		v.between("max_steps", s.MaxSteps, 1, 500)
		if s.Until != nil {
			if n := len([]rune(s.Until.Text)); n < 1 || n > 2000 {
				v.add("until.text", "must be 1 to 2000 characters")
			}
		}
		if (s.X == nil) != (s.Y == nil) {
			v.add("x", "give x and y together")
		}
	case Wait:
		if s.Condition == "" {
			v.add("condition", "is required")
		} else if !contains(conditions, s.Condition) {
			v.add("condition", "must be one of %s; got %q", strings.Join(conditions, ", "), s.Condition)
		}
		switch {
		case s.Condition == "text" && (s.Expected != nil) == (s.Previous != nil):
			v.add("expected", "condition text takes expected (a substring) or previous (the text it must change from), exactly one")
		case s.Condition != "text" && s.Previous != nil:
			v.add("previous", "is only for condition text")
		case expectedRequired[s.Condition] && s.Expected == nil:
			v.add("expected", "is required for condition %s", s.Condition)
		}
		if s.Expected != nil {
			switch {
			case booleanConditions[s.Condition] && s.Expected.Str != nil && !(s.Condition == "checked" && *s.Expected.Str == "mixed"):
				v.add("expected", "must be true or false for condition %s", s.Condition)
			case !booleanConditions[s.Condition] && s.Expected.Bool != nil:
				v.add("expected", "must be a string for condition %s", s.Condition)
			case !expectedRequired[s.Condition] && s.Condition != "text":
				v.add("expected", "is not used by condition %s", s.Condition)
			}
		}
		v.between("idle_ms", s.IdleMS, 100, 10000)
	case PressKey:
		if s.Key == "" {
			v.add("key", "is required")
		} else if _, err := ParseChord("key", s.Key); err != nil {
			v.list = append(v.list, prefixed(prefix, errs.As(err)))
		}
	case Drag:
		if s.To == nil && s.DX == nil && s.DY == nil {
			v.add("to", "give a target locator (to) or a distance (dx, dy)")
		}
		if s.To != nil {
			if s.DX != nil || s.DY != nil {
				v.add("to", "give to or dx/dy, not both")
			}
			if s.To.Selector == "" && s.To.Ref == "" {
				v.add("to.selector", "is required")
			}
			v.locator("to.", *s.To)
		}
	case Upload:
		if len(s.Files) == 0 {
			v.add("files", "give at least one file path")
		}
		for i, f := range s.Files {
			if f == "" {
				v.add(fmt.Sprintf("files[%d]", i), "must not be empty")
			}
		}
	}
	if s.Observe != nil {
		if s.Observe.Ref != "" {
			v.add("observe.ref", "is not a field of observe: name the control with selector")
		}
		o := *s.Observe
		o.Ref = ""
		v.list = append(v.list, o.Validate(v.at("observe"))...)
	}
	return v.list
}

// Validate checks a control read's fields; prefix is its path ("observe",
// "steps[2].observe").
func (o *ObserveSpec) Validate(prefix string) []*errs.Error {
	v := &violations{prefix: prefix}
	v.locator("", o.Locator)
	v.between("max_options", o.MaxOptions, 1, 100)
	v.between("max_chars", o.MaxChars, 1000, 64000)
	v.between("timeout_ms", o.TimeoutMS, 100, 5000)
	return v.list
}

type violations struct {
	prefix string
	list   []*errs.Error
}

func (v *violations) add(field, format string, args ...any) {
	v.list = append(v.list, errs.Input(v.at(field), format, args...))
}

// at is the path of field under the prefix.
func (v *violations) at(field string) string {
	if v.prefix == "" {
		return field
	}
	return v.prefix + "." + field
}

func prefixed(prefix string, e *errs.Error) *errs.Error {
	if prefix != "" {
		e.Path = prefix + "." + e.Path
	}
	return e
}

func (v *violations) oneOf(field, value string, allowed ...string) {
	if value != "" && !contains(allowed, value) {
		v.add(field, "must be one of %s; got %q", strings.Join(allowed, ", "), value)
	}
}

func (v *violations) between(field string, value *int, lo, hi int) {
	if value != nil && (*value < lo || *value > hi) {
		v.add(field, "must be between %d and %d; got %d", lo, hi, *value)
	}
}

func (v *violations) ratio(field string, x float64) {
	if x < 0 || x > 1 {
		v.add(field, "must be between 0 and 1; got %g", x)
	}
}

func (v *violations) rangeOK(field string, r *Range) {
	if r == nil {
		return
	}
	if r.Min < 0 || r.Max > 1000 {
		v.add(field, "must be between 0 and 1000 ms")
	}
	if r.Min > r.Max {
		v.add(field, "min %d is greater than max %d", r.Min, r.Max)
	}
}

// locator checks the rules between locator fields.
func (v *violations) locator(at string, l locate.Locator) {
	hasOptions := l.SelectorType != "" || l.Name != nil || l.Nth != nil || l.Frame != nil || l.FrameID != ""
	if l.Ref != "" && (l.Selector != "" || hasOptions) {
		v.add(at+"ref", "a ref names the element alone: drop selector, selector_type, name, nth, frame and frame_id")
	}
	if l.Selector == "" && l.Ref == "" && hasOptions {
		v.add(at+"selector", "selector_type, name, nth, frame and frame_id need a selector")
	}
	if l.Frame != nil && l.FrameID != "" {
		v.add(at+"frame", "give frame or frame_id, not both")
	}
	if f := l.Frame; f != nil {
		if f.URL == "" && f.Title == "" && len(f.Path) == 0 {
			v.add(at+"frame", "needs at least one of url, title and path")
		}
		if len(f.Path) > 16 {
			v.add(at+"frame.path", "has more than 16 steps")
		}
		for i, p := range f.Path {
			if p == "" {
				v.add(fmt.Sprintf("%sframe.path[%d]", at, i), "must not be empty")
			}
		}
	}
	v.oneOf(at+"selector_type", l.SelectorType, locate.CSS, locate.XPath, locate.Label, locate.Placeholder, locate.Role)
	if l.Name != nil && l.SelectorType != locate.Role {
		v.add(at+"name", "is only for selector_type role")
	}
	if l.Nth != nil && *l.Nth < 0 {
		v.add(at+"nth", "must be 0 or more")
	}
	if len(l.Selector) > 10000 {
		v.add(at+"selector", "is longer than 10000 characters")
	}
}

// presentFields lists the JSON names of the fields set in s.
func presentFields(s *Step) []string {
	var out []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous {
				walk(v.Field(i))
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !v.Field(i).IsZero() {
				out = append(out, name)
			}
		}
	}
	walk(reflect.ValueOf(s).Elem())
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ValidateLocator checks the rules between the fields of a locator that is
// not part of a step (browser_observe's scope), each violation with its path.
func ValidateLocator(l locate.Locator) []*errs.Error {
	var v violations
	v.locator("", l)
	return v.list
}
