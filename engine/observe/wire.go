package observe

import "encoding/json"

// Each fact is written once. A form field whose control is listed in
// interactive, under the field's ref with the same label and selector,
// leaves those two out of the JSON: the field keeps its ref and what only
// it says (type, name, value, options, state), and the interactive entry
// says what the control is called and how to find it. A field without a
// selector in the JSON is such a field; decoding fills both back in from
// its entry (restoreFields), so in Go every field is whole again.

// compactForms returns forms as they are written: fields whose label and
// selector their interactive entry repeats lose them. The input is not
// changed; forms with nothing to leave out are shared.
func compactForms(forms []Form, es Elements) []Form {
	if len(forms) == 0 || len(es) == 0 {
		return forms
	}
	byRef := make(map[string]*Element, len(es))
	for i := range es {
		byRef[es[i].Ref] = &es[i]
	}
	out := forms
	for i, f := range forms {
		var fields []Field
		for j, fd := range f.Fields {
			e := byRef[fd.Ref]
			if fd.Ref == "" || fd.Selector == "" || e == nil || e.Label != fd.Label || e.Selector != fd.Selector {
				continue
			}
			if fields == nil {
				fields = append([]Field(nil), f.Fields...)
			}
			fields[j].Label, fields[j].Selector = "", ""
		}
		if fields == nil {
			continue
		}
		if &out[0] == &forms[0] {
			out = append([]Form(nil), forms...)
		}
		out[i].Fields = fields
	}
	return out
}

// restoreFields fills a written field's label and selector back in from
// the interactive entry of its ref (see compactForms).
func (o *Observation) restoreFields() {
	var byRef map[string]*Element
	for i := range o.Forms {
		for j := range o.Forms[i].Fields {
			fd := &o.Forms[i].Fields[j]
			if fd.Selector != "" || fd.Ref == "" {
				continue
			}
			if byRef == nil {
				byRef = make(map[string]*Element, len(o.Interactive))
				for k := range o.Interactive {
					byRef[o.Interactive[k].Ref] = &o.Interactive[k]
				}
			}
			if e := byRef[fd.Ref]; e != nil {
				fd.Label, fd.Selector = e.Label, e.Selector
			}
		}
	}
}

// UnmarshalJSON reads an observation as MarshalJSON writes it, fields
// whole again. Decode is the reader that also checks the contract.
func (o *Observation) UnmarshalJSON(raw []byte) error {
	type fields Observation // the same fields, without this method
	if err := json.Unmarshal(raw, (*fields)(o)); err != nil {
		return err
	}
	o.restoreFields()
	return nil
}
