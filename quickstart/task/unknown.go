package task

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/tabwright/tabwright/schemas"
)

// The schema's additionalProperties failure names an object, not the key:
// "success: unknown field(s) 'scrpit'", which the loader's own rule about
// the same object then hides. Each unknown key is reported at its own path
// instead, with the nearest name the schema knows there.

var (
	rawSchemaOnce sync.Once
	rawSchema     map[string]any
)

func taskSchemaJSON() map[string]any {
	rawSchemaOnce.Do(func() { _ = json.Unmarshal(schemas.Task, &rawSchema) })
	return rawSchema
}

// unknownKeys replaces the schema's per-object unknown-key problems with
// one per key. A typo under success also silences "nothing to assert",
// which it causes.
func unknownKeys(top map[string]any, ps problems) problems {
	var keys problems
	walkUnknown(top, taskSchemaJSON(), "", &keys)
	if len(keys) == 0 {
		return ps
	}
	underSuccess := false
	for _, k := range keys {
		underSuccess = underSuccess || strings.HasPrefix(k.Field, "success.")
	}
	out := keys
	for _, p := range ps {
		switch {
		case p.Rule == "schema.additionalProperties":
		case underSuccess && (p.Rule == "success.assertion" || p.Rule == "success.serve-unchecked"):
		default:
			out = append(out, p)
		}
	}
	return out
}

func walkUnknown(v any, s map[string]any, at string, ps *problems) {
	if s == nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		closed := s["additionalProperties"] == false
		for _, k := range sortedKeys(x) {
			sub, known := props[k].(map[string]any)
			if !known {
				if closed {
					ps.add(join(at, k), "schema.additionalProperties", "%s", unknownKeyMessage(k, props))
				}
				continue
			}
			walkUnknown(x[k], sub, join(at, k), ps)
		}
	case []any:
		items, _ := s["items"].(map[string]any)
		for i, e := range x {
			walkUnknown(e, items, fmt.Sprintf("%s[%d]", at, i), ps)
		}
	}
}

func unknownKeyMessage(key string, props map[string]any) string {
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	if near := nearest(key, names); near != "" {
		return fmt.Sprintf("unknown key; did you mean '%s'?", near)
	}
	if home := homeOf(key, taskSchemaJSON(), ""); home != "" {
		return fmt.Sprintf("unknown key here; '%s' belongs under %s", key, home)
	}
	return "unknown key; allowed here: " + strings.Join(names, ", ")
}

// homeOf is where in the schema key is a property ("the top level",
// "budgets"), or "".
func homeOf(key string, s map[string]any, at string) string {
	props, _ := s["properties"].(map[string]any)
	if _, ok := props[key]; ok {
		return orTop(at)
	}
	for _, n := range sortedKeys(props) {
		sub, _ := props[n].(map[string]any)
		if items, ok := sub["items"].(map[string]any); ok {
			sub = items
		}
		if h := homeOf(key, sub, join(at, n)); h != "" {
			return h
		}
	}
	return ""
}

// Nearest is the name in names closest to key, if close enough to be a
// typo of it, else "" (for flags and subcommands too).
func Nearest(key string, names []string) string { return nearest(key, names) }

// nearest is the name closest to key by edit distance (a swap of two
// neighbours counts once), if it is close enough to be a typo.
func nearest(key string, names []string) string {
	best, bestD := "", 1<<30
	for _, n := range names {
		if d := editDistance(strings.ToLower(key), n); d < bestD {
			best, bestD = n, d
		}
	}
	limit := 2
	if len([]rune(key)) <= 3 {
		limit = 1
	}
	if bestD <= limit || bestD <= len([]rune(best))/3 {
		return best
	}
	return ""
}

// editDistance is the optimal string alignment distance.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// suggest is " (did you mean 'x'?)" for a key close to one of names, else "".
func suggest(key string, names []string) string {
	if n := nearest(key, names); n != "" {
		return fmt.Sprintf(" (did you mean '%s'?)", n)
	}
	return ""
}
