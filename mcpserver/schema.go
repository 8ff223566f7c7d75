package mcpserver

// Input schemas are written out here, not inferred from structs, so that
// enums, bounds and descriptions are exactly what an agent reads.

type schema = map[string]any

func object(required []string, props map[string]schema) schema {
	s := schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func str(desc string) schema { return schema{"type": "string", "minLength": 1, "description": desc} }

func enum(desc string, def string, values ...string) schema {
	s := schema{"type": "string", "enum": values, "description": desc}
	if def != "" {
		s["default"] = def
	}
	return s
}

func integer(desc string, lo, hi, def int) schema {
	return schema{"type": "integer", "minimum": lo, "maximum": hi, "default": def, "description": desc}
}

func boolean(desc string, def bool) schema {
	return schema{"type": "boolean", "default": def, "description": desc}
}

// Shared field descriptions keep one vocabulary across tools.
var (
	tabHandleField = str("Handle of a tab this session claimed (from browser_open_tab or browser_claim_tab).")
	browserIDField = str("Browser to use, from browser_discover kind=browsers. Default: the user's own browser profile when exactly one is paired (attach mode), else the managed browser (or the --cdp-url one).")
	timeoutField   = integer("Deadline for the whole call in milliseconds.", minTimeoutMS, maxTimeoutMS, defaultTimeoutMS)
)

const (
	minTimeoutMS     = 100
	maxTimeoutMS     = 120000
	defaultTimeoutMS = 30000
)
