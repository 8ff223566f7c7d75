package act

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
)

// Wait conditions, by what they read and what they compare with.
var (
	pageConditions    = map[string]bool{"url": true, "network_idle": true}
	expectedRequired  = map[string]bool{"url": true, "value": true, "checked": true, "selected": true, "expanded": true}
	booleanConditions = map[string]bool{"checked": true, "selected": true, "expanded": true}
)

// Validate checks the step's fields and the rules between them. It returns
// every violation, each with its path under prefix (e.g. "steps[3]").
func (s *Step) Validate(prefix string) []*errs.Error {
	v := &violations{prefix: prefix}
	vr, ok := contract().variants[s.Action]
	if !ok {
		v.add("action", "must be one of %s; got %q", strings.Join(Actions(), ", "), s.Action)
		return v.list
	}
	v.step(vr, s)
	v.target(s)
	v.locator("", s.Locator)
	if rules := actions[s.Action].rules; rules != nil {
		rules(v, s)
	}
	if s.Observe != nil {
		o := s.Observe.Locator
		o.Ref = ""
		v.locator("observe.", o)
	}
	return v.list
}

// target checks that the step names an element exactly when its action
// and condition need one.
func (v *violations) target(s *Step) {
	hasLocator := s.Selector != "" || s.Ref != ""
	switch {
	case s.Action == Type:
		if focused := s.Focused != nil && *s.Focused; focused == hasLocator {
			v.add("selector", "type needs a selector (or ref) or focused: true, not both and not neither")
		}
	case actions[s.Action].element && !hasLocator:
		v.add("selector", "is required for %s", s.Action)
	case s.Action == Wait && pageConditions[s.Condition] && hasLocator:
		v.add("selector", "condition %s reads the page, not an element: remove the locator", s.Condition)
	case s.Action == Wait && s.Condition != "" && !pageConditions[s.Condition] && !hasLocator:
		v.add("selector", "condition %s needs a selector", s.Condition)
	}
}

func clickRules(v *violations, s *Step) {
	seen := map[string]bool{}
	for i, m := range s.Modifiers {
		if seen[m] {
			v.add(fmt.Sprintf("modifiers[%d]", i), "%s is given twice", m)
		}
		seen[m] = true
	}
	if s.Mode == "dom" && ((s.Button != "" && s.Button != "left") || (s.ClickCount != nil && *s.ClickCount != 1) || len(s.Modifiers) > 0 || s.Offset != nil) {
		v.add("mode", "dom clicks are left, single, without modifiers or offset; use mode native for the rest")
	}
}

func selectRules(v *violations, s *Step) {
	n := 0
	for _, set := range []bool{s.Value != nil, s.Label != nil, s.Index != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		v.add("value", "give exactly one of value, label and index")
	}
}

func scrollRules(v *violations, s *Step) {
	if s.DeltaY == nil && s.Until == nil {
		v.add("delta_y", "is required unless until is given")
	}
	if (s.X == nil) != (s.Y == nil) {
		v.add("x", "give x and y together")
	}
}

func waitRules(v *violations, s *Step) {
	switch {
	case s.Condition == "text" && (s.Expected != nil) == (s.Previous != nil):
		v.add("expected", "condition text takes expected (a substring) or previous (the text it must change from), exactly one")
	case s.Condition != "text" && s.Previous != nil:
		v.add("previous", "is only for condition text")
	case expectedRequired[s.Condition] && s.Expected == nil:
		v.add("expected", "is required for condition %s", s.Condition)
	}
	if s.Expected == nil {
		return
	}
	switch {
	case booleanConditions[s.Condition] && s.Expected.Str != nil && !(s.Condition == "checked" && *s.Expected.Str == "mixed"):
		v.add("expected", "must be true or false for condition %s", s.Condition)
	case !booleanConditions[s.Condition] && s.Expected.Bool != nil:
		v.add("expected", "must be a string for condition %s", s.Condition)
	case !expectedRequired[s.Condition] && s.Condition != "text":
		v.add("expected", "is not used by condition %s", s.Condition)
	}
}

func pressKeyRules(v *violations, s *Step) {
	if s.Key == "" {
		return
	}
	if _, err := ParseChord("key", s.Key); err != nil {
		v.list = append(v.list, prefixed(v.prefix, errs.As(err)))
	}
}

func dragRules(v *violations, s *Step) {
	if s.To == nil && s.DX == nil && s.DY == nil {
		v.add("to", "give a target locator (to) or a distance (dx, dy)")
	}
	if s.To == nil {
		return
	}
	if s.DX != nil || s.DY != nil {
		v.add("to", "give to or dx/dy, not both")
	}
	if s.To.Selector == "" && s.To.Ref == "" {
		v.add("to.selector", "is required")
	}
	v.locator("to.", *s.To)
}

// Validate checks a control read's fields; prefix is its path ("observe",
// "steps[2].observe").
func (o *ObserveSpec) Validate(prefix string) []*errs.Error {
	v := &violations{prefix: prefix}
	v.object("", contract().observe, reflect.ValueOf(o).Elem())
	v.locator("", o.Locator)
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

// locator checks the rules between locator fields; their own bounds come
// from the contract.
func (v *violations) locator(at string, l locate.Locator) {
	hasOptions := l.SelectorType != "" || l.Name != nil || l.Nth != nil || l.Frame != nil || l.FrameID != ""
	if l.Ref != "" && (l.Selector != "" || hasOptions) {
		v.add(at+"ref", "a ref names the element alone: drop selector, selector_type, name, nth, frame and frame_id")
	}
	if l.Selector == "" && l.Ref == "" && hasOptions {
		v.add(at+"selector", "selector_type, name, nth, frame and frame_id need a selector")
	}
	v.frame(at, l.Frame, l.FrameID)
	if l.Name != nil && l.SelectorType != locate.Role {
		v.add(at+"name", "is only for selector_type role")
	}
}

// frame checks the rules of a frame: frame or frame_id, and a frame names
// at least one of url, title and path.
func (v *violations) frame(at string, f *locate.FrameSpec, id string) {
	if f != nil && id != "" {
		v.add(at+"frame", "give frame or frame_id, not both")
	}
	if f != nil && f.URL == "" && f.Title == "" && f.Path == nil {
		v.add(at+"frame", "needs at least one of url, title and path")
	}
}

// ValidateFrame checks a frame or frame_id given on its own (the frame a
// tool reads, shoots or evaluates in): the contract's bounds of frame and
// the frame rules, each violation with its path.
func ValidateFrame(f *locate.FrameSpec, id string) []*errs.Error {
	var v violations
	v.object("", contract().locator, reflect.ValueOf(locate.Locator{Frame: f, FrameID: id}))
	v.frame("", f, id)
	return v.list
}

// ValidateLocator checks a locator that is not part of a step, each
// violation with its path.
func ValidateLocator(l locate.Locator) []*errs.Error {
	var v violations
	v.object("", contract().locator, reflect.ValueOf(l))
	v.locator("", l)
	return v.list
}

// ValidateScope checks what a reading tool (browser_observe,
// browser_screenshot) is pointed at: one element, by a locator, or with
// neither selector nor ref a child frame alone, or nothing.
func ValidateScope(l locate.Locator) []*errs.Error {
	if l.Selector != "" || l.Ref != "" {
		return ValidateLocator(l)
	}
	f, id := l.Frame, l.FrameID
	l.Frame, l.FrameID = nil, ""
	return append(ValidateFrame(f, id), ValidateLocator(l)...)
}
