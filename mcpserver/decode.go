package mcpserver

import (
	"encoding/json"

	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/errs"
)

// decode and decodeOnly read tool arguments with the batch contract's strict
// rules: single-action tools take the fields of the batch's step variants.
func decode(raw json.RawMessage, dst any) error { return batch.DecodeStrict("", raw, dst, nil) }

func decodeOnly(raw json.RawMessage, dst any, only []string) error {
	return batch.DecodeStrict("", raw, dst, only)
}

func required(path, value string) error {
	if value == "" {
		return errs.Input(path, "is required")
	}
	return nil
}

func between(path string, value *int, lo, hi int) error {
	if value != nil && (*value < lo || *value > hi) {
		return errs.Input(path, "must be between %d and %d; got %d", lo, hi, *value)
	}
	return nil
}

func orDefault(v *int, def int) int {
	if v == nil {
		return def
	}
	return *v
}

func boolOr(v *bool, def bool) bool {
	if v == nil {
		return def
	}
	return *v
}

// firstErr returns the first non-nil error, so checks read as a list.
func firstErr(checks ...error) error {
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}

// firstViolation is the first of a validator's violations, or nil.
func firstViolation(v []*errs.Error) error {
	if len(v) == 0 {
		return nil
	}
	return v[0]
}

func errInput(path, msg string) error { return errs.Input(path, "%s", msg) }
