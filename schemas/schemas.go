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
