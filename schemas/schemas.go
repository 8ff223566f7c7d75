// Package schemas embeds the JSON schemas of the contracts (the same
// structure as the project's spec), so tools and tests read one copy.
package schemas

import _ "embed"

// BrowserBatchInput is the input contract of browser_batch; its step
// variants are also the inputs of the single-action tools.
//
//go:embed browser_batch.input.schema.json
var BrowserBatchInput []byte

// Observation is the frozen observation payload contract.
//
//go:embed observation.schema.json
var Observation []byte

// Task is the quickstart task file format.
//
//go:embed task.schema.json
var Task []byte

// Structure returns v, a decoded JSON schema, without its description
// strings at any depth: what must equal the contract, since descriptions
// are written in our own words. A property named "description" (a schema,
// not a string) is kept.
func Structure(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if _, isString := e.(string); k == "description" && isString {
				continue
			}
			out[k] = Structure(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Structure(e)
		}
		return out
	}
	return v
}
