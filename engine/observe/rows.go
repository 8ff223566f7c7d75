package observe

import (
	"encoding/json"
	"fmt"
)

// Elements is the interactive list: one element per entry, each with its
// ref, selector, role and label, as the contract says.
//
// A caller may ask for a compact form instead (Options.Rows): a run of at
// least minRun consecutive elements that carry nothing but a ref, a role, a
// selector, a label and an href is written as one entry with a row per
// element,
//
//	{"role":"link","columns":["ref","selector","label"],"rows":[["e4","a[href='/a']","Alpha"],...]}
//
// with role a column when the run's roles differ. Each element then costs
// its values and not its keys again, about half the characters; decoding
// expands the rows back into elements, in DOM order.
type Elements []Element

// minRun is the shortest run worth a row entry: below it the column names
// cost more than the keys they save.
const minRun = 3

// plain reports whether e has nothing a row cannot carry.
func plain(e Element) bool {
	e.Ref, e.Selector, e.Role, e.Label, e.Href = "", "", "", "", ""
	return e == (Element{})
}

// Rows is the compact form of es: runs of plain elements as row entries.
func (es Elements) Rows() []any {
	out := make([]any, 0, len(es))
	for i := 0; i < len(es); {
		j := i
		for j < len(es) && plain(es[j]) {
			j++
		}
		if j-i < minRun {
			out = append(out, es[i])
			i++
			continue
		}
		out = append(out, runOf(es[i:j]))
		i = j
	}
	return out
}

func runOf(run []Element) rowEntry {
	href, role := false, run[0].Role
	for _, e := range run {
		href = href || e.Href != ""
		if e.Role != run[0].Role {
			role = ""
		}
	}
	cols := []string{"ref"}
	if role == "" {
		cols = append(cols, "role")
	}
	cols = append(cols, "selector", "label")
	if href {
		cols = append(cols, "href")
	}
	r := rowEntry{Role: role, Columns: cols, Rows: make([][]string, len(run))}
	for k, e := range run {
		row := []string{e.Ref}
		if role == "" {
			row = append(row, e.Role)
		}
		row = append(row, e.Selector, e.Label)
		if href {
			row = append(row, e.Href)
		}
		r.Rows[k] = row
	}
	return r
}

// MarshalJSON writes the observation; when the caller asked for rows
// (Options.Rows), interactive in its compact form.
func (o Observation) MarshalJSON() ([]byte, error) {
	type fields Observation // the same fields, without this method
	if !o.rows {
		return json.Marshal(fields(o))
	}
	return json.Marshal(struct {
		fields
		Interactive []any `json:"interactive"`
	}{fields(o), o.Interactive.Rows()})
}

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
