package mcpserver

import (
	"sort"

	"github.com/tabwright/tabwright/engine/batch"
)

// Builders of schema nodes, for the fields a tool gives in Go (listedAs,
// the action and batch tools); the rest come from struct tags (define.go).

type schema = map[string]any

func object(required []string, props map[string]schema) schema {
	s := schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// Each builder leaves an empty description out: a field whose name, type
// and tool say enough costs no words.

func described(s schema, desc string) schema {
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func enum(desc string, def string, values ...string) schema {
	s := schema{"type": "string", "enum": values}
	if def != "" {
		s["default"] = def
	}
	return described(s, desc)
}

func integer(desc string, lo, hi, def int) schema {
	return described(schema{"type": "integer", "minimum": lo, "maximum": hi, "default": def}, desc)
}

// tabHandleField is tab_handle as a hand-built schema lists it.
var tabHandleField = schema{"type": "string"}

// A call's timeout_ms has the bounds and default of a batch's (the
// contract's, read from it on first use).
func minTimeoutMS() int     { return batch.ContractLimits().MinTimeoutMS }
func maxTimeoutMS() int     { return batch.ContractLimits().MaxTimeoutMS }
func defaultTimeoutMS() int { return batch.ContractLimits().DefaultTimeoutMS }

// timeoutField is a call's timeout_ms as the tools list it.
func timeoutField() schema { return integer("", minTimeoutMS(), maxTimeoutMS(), defaultTimeoutMS()) }

// listedFields are the properties an input schema lists, sorted: what a
// handler that decodes into a wider struct accepts.
func listedFields(s schema) []string {
	var out []string
	for name := range s["properties"].(map[string]schema) {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
