package observe

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Elements is the interactive list: one element per entry, each with its
// ref, selector, role and label, as the contract says.
//
// Earlier versions wrote a run of plain elements as one entry with a row
// per element ({"role":"link","columns":["ref","selector","label"],
// "rows":[[...]]}); that retyped the contract's items, so it is no longer
// written, and decoding still expands it for payloads saved before.
type Elements []Element

// rowEntry is the JSON shape of a run.
type rowEntry struct {
	Role    string     `json:"role,omitempty"` // when the run shares one
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// UnmarshalJSON reads both shapes, so a consumer sees one element per entry
// whatever the producer folded. Columns it does not know are skipped.
func (es *Elements) UnmarshalJSON(raw []byte) error {
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return err
	}
	if entries == nil && string(raw) == "null" {
		*es = nil
		return nil
	}
	out := Elements{}
	for i, entry := range entries {
		var probe struct {
			Rows json.RawMessage `json:"rows"`
		}
		if err := json.Unmarshal(entry, &probe); err != nil {
			return fmt.Errorf("interactive[%d]: %w", i, err)
		}
		if probe.Rows == nil {
			var e Element
			if err := json.Unmarshal(entry, &e); err != nil {
				return fmt.Errorf("interactive[%d]: %w", i, err)
			}
			out = append(out, e)
			continue
		}
		var r rowEntry
		if err := json.Unmarshal(entry, &r); err != nil {
			return fmt.Errorf("interactive[%d]: %w", i, err)
		}
		for k, row := range r.Rows {
			if len(row) != len(r.Columns) {
				return fmt.Errorf("interactive[%d].rows[%d]: %d values for %d columns", i, k, len(row), len(r.Columns))
			}
			e := Element{Role: r.Role}
			for c, name := range r.Columns {
				switch name {
				case "ref":
					e.Ref = row[c]
				case "role":
					e.Role = row[c]
				case "selector":
					e.Selector = row[c]
				case "label":
					e.Label = row[c]
				case "href":
					e.Href = row[c]
				}
			}
			out = append(out, e)
		}
	}
	*es = out
	return nil
}

// FieldName is the name the control submits under: Name, or the one its
// selector spells ([name=email], [name='a b']), since the name is left out
// of the JSON when the selector already says it.
func (f Field) FieldName() string {
	if f.Name != "" {
		return f.Name
	}
	s, ok := strings.CutPrefix(f.Selector, "[name=")
	if !ok || !strings.HasSuffix(s, "]") {
		return ""
	}
	s = s[:len(s)-1]
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return s // a bare CSS identifier
	}
	var b strings.Builder
	for i := 1; i < len(s)-1; i++ {
		if s[i] == '\\' && i+1 < len(s)-1 {
			i++
			switch s[i] {
			case 'a':
				b.WriteByte('\n')
				i++ // the space that ends the escape
				continue
			case 'd':
				b.WriteByte('\r')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
