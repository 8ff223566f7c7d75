package act

import (
	"encoding/json"
	"sort"
	"sync"

	"github.com/tabwright/tabwright/schemas"
)

// The step contract lives in one place: the step variants of the embedded
// browser_batch schema. The fields an action takes, their bounds, enums and
// which are required are read from it here, once; Validate checks a step
// against it, the batch decodes each step by it and the single-action tools
// build their input schemas from it. Drag and upload are not batch steps:
// their variants are written below in the same form.

// node is one schema node of the contract, descriptions left out.
type node = map[string]any

// variant is one action's step: its property schemas and required fields.
type variant struct {
	schema   node // {"type":"object","properties":...,"required":...}
	props    map[string]node
	required map[string]bool
	batch    bool // a step of browser_batch
}

// refNode is the one field the single-action tools add to a step: a ref
// from the tab's latest observation instead of a locator.
var refNode = node{"type": "string", "minLength": 1}

// nonBatchSteps are drag and upload, in the contract's form: their own
// fields; the locator fields (and drag's to, offset and dialog_policy) are
// the contract's click step's, added by buildNonBatch.
const nonBatchSteps = `{
 "drag": {"properties": {
   "dx": {"type": "number"},
   "dy": {"type": "number"}},
  "required": ["selector"]},
 "upload": {"properties": {
   "files": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}},
  "required": ["selector", "files"]}
}`

// locatorFields are the fields every step takes to find its element.
var locatorFields = []string{"selector", "selector_type", "name", "nth", "frame", "frame_id"}

type table struct {
	variants map[string]*variant
	observe  node // a step's observe
	locator  node // the locator fields and ref, as an object
	// batchObserve is the batch-level observe, which also names ref (refused
	// with its own message).
	batchObserve node
}

var contract = sync.OnceValue(func() *table {
	var doc node
	if err := json.Unmarshal(schemas.BrowserBatchInput, &doc); err != nil {
		panic("act: the embedded batch contract: " + err.Error()) // part of the build
	}
	doc = schemas.Structure(doc).(node)
	top := doc["properties"].(node)
	t := &table{variants: map[string]*variant{}, batchObserve: top["observe"].(node)}
	for _, raw := range top["steps"].(node)["items"].(node)["oneOf"].([]any) {
		v := newVariant(raw.(node))
		v.batch = true
		t.variants[v.props["action"]["const"].(string)] = v
	}
	click := t.variants[Click]
	t.observe = click.props["observe"]
	t.locator = locatorObject(click)
	var extra map[string]node
	if err := json.Unmarshal([]byte(nonBatchSteps), &extra); err != nil {
		panic("act: nonBatchSteps: " + err.Error())
	}
	for action, def := range extra {
		t.variants[action] = newVariant(buildNonBatch(action, def, click))
	}
	return t
})

// buildNonBatch completes a variant of nonBatchSteps: its own fields, the
// click step's locator fields and timeout_ms, and, for drag, its
// dialog_policy and offset.
func buildNonBatch(action string, def node, click *variant) node {
	props := def["properties"].(node)
	for _, f := range append(append([]string{}, locatorFields...), "timeout_ms") {
		props[f] = deepCopy(click.props[f]).(node)
	}
	props["action"] = node{"type": "string", "const": action}
	if action == Drag {
		props["dialog_policy"] = deepCopy(click.props["dialog_policy"]).(node)
		props["offset"] = deepCopy(click.props["offset"]).(node)
		props["to"] = locatorObject(click)
	}
	return node{"type": "object", "additionalProperties": false, "properties": props, "required": append([]any{"action"}, anys(def["required"])...)}
}

// locatorObject is an object of the click step's locator fields and ref.
func locatorObject(click *variant) node {
	props := node{"ref": refNode}
	for _, f := range locatorFields {
		props[f] = deepCopy(click.props[f])
	}
	return node{"type": "object", "additionalProperties": false, "properties": props}
}

func anys(v any) []any {
	l, _ := v.([]any)
	return l
}

func newVariant(schema node) *variant {
	v := &variant{schema: schema, props: map[string]node{}, required: map[string]bool{}}
	for name, p := range schema["properties"].(node) {
		v.props[name] = p.(node)
	}
	for _, r := range anys(schema["required"]) {
		v.required[r.(string)] = true
	}
	return v
}

// Actions lists every action name, sorted.
func Actions() []string { return actionsWhere(func(*variant) bool { return true }) }

// BatchActions lists the actions a browser_batch step may have, sorted.
func BatchActions() []string { return actionsWhere(func(v *variant) bool { return v.batch }) }

func actionsWhere(keep func(*variant) bool) []string {
	var out []string
	for a, v := range contract().variants {
		if keep(v) {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// StepFields lists the fields of an action's step (action included, ref
// not), sorted; ok is false for an unknown action.
func StepFields(action string) (fields []string, ok bool) {
	v, ok := contract().variants[action]
	if !ok {
		return nil, false
	}
	for f := range v.props {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	return fields, true
}

// StepSchema returns a fresh copy of an action's step schema (structure
// only, no descriptions), for a caller to edit; nil for an unknown action.
func StepSchema(action string) map[string]any {
	v, ok := contract().variants[action]
	if !ok {
		return nil
	}
	return deepCopy(v.schema).(node)
}

// BatchObserveFields lists the fields of the batch-level observe, sorted.
func BatchObserveFields() []string {
	var out []string
	for f := range contract().batchObserve["properties"].(node) {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
