package observe

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Compare returns what changed from base to cur, section by section, over
// the sections both carry (a section only cur carries counts as all added):
//
//   - interactive by ref, forms by selector, listpattern by item selector,
//     tableshape by selector: Added and Changed hold the new entries,
//     Removed the keys of the entries that went away;
//   - text and a11y line by line: Added and Removed hold lines;
//   - title, url and reader: Changed holds the new value.
//
// Digests of base and cur being equal means an empty Diff.
func Compare(base, cur *Observation) *Diff {
	d := &Diff{Base: base.Digest, Added: map[string][]any{}, Removed: map[string][]any{}, Changed: map[string][]any{}}
	if base.Digest != "" && base.Digest == cur.Digest {
		return d
	}
	has := func(o *Observation, s string) bool { return !o.notIncluded(s) }
	if cur.Title != base.Title {
		d.Changed["title"] = []any{cur.Title}
	}
	if cur.URL != base.URL {
		d.Changed["url"] = []any{cur.URL}
	}
	if has(cur, SectionText) {
		prev := ""
		if has(base, SectionText) {
			prev = base.TextPreview
		}
		lines(d, SectionText, prev, cur.TextPreview)
	}
	if has(cur, SectionForms) {
		var prev []Form
		if has(base, SectionForms) {
			prev = base.Forms
		}
		keyed(d, SectionForms, prev, cur.Forms, func(f Form) string { return f.Selector })
	}
	if has(cur, SectionInteractive) {
		var prev []Element
		if has(base, SectionInteractive) {
			prev = base.Interactive
		}
		keyed(d, SectionInteractive, prev, cur.Interactive, func(e Element) string { return e.Ref })
	}
	if cur.A11y != nil {
		prev := ""
		if base.A11y != nil {
			prev = base.A11y.Outline
		}
		lines(d, SectionA11y, prev, cur.A11y.Outline)
	}
	if cur.Reader != nil && !reflect.DeepEqual(base.Reader, cur.Reader) {
		d.Changed[SectionReader] = []any{cur.Reader}
	}
	if cur.ListPattern != nil {
		keyed(d, SectionListPattern, base.ListPattern, cur.ListPattern, func(l ListPattern) string { return l.Item })
	}
	if cur.TableShape != nil {
		keyed(d, SectionTableShape, base.TableShape, cur.TableShape, func(t TableShape) string { return t.Selector })
	}
	return d
}

// notIncluded reports whether a required section was left out on request.
func (o *Observation) notIncluded(section string) bool {
	switch v := o.Reserved["notincluded"].(type) {
	case []string:
		for _, s := range v {
			if s == section {
				return true
			}
		}
	case []any:
		for _, s := range v {
			if s == section {
				return true
			}
		}
	}
	return false
}

// keyed diffs two lists of entries by key; a changed entry is one whose JSON
// differs.
func keyed[T any](d *Diff, section string, prev, cur []T, key func(T) string) {
	old := make(map[string]T, len(prev))
	for _, e := range prev {
		old[key(e)] = e
	}
	seen := make(map[string]bool, len(cur))
	for _, e := range cur {
		k := key(e)
		seen[k] = true
		p, ok := old[k]
		switch {
		case !ok:
			d.Added[section] = append(d.Added[section], e)
		case !sameJSON(p, e):
			d.Changed[section] = append(d.Changed[section], e)
		}
	}
	for _, e := range prev {
		if k := key(e); !seen[k] {
			d.Removed[section] = append(d.Removed[section], k)
			seen[k] = true
		}
	}
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// lines diffs two texts as multisets of lines, keeping the new text's order
// for added lines and the old one's for removed lines.
func lines(d *Diff, section, prev, cur string) {
	if prev == cur {
		return
	}
	count := map[string]int{}
	for _, l := range split(prev) {
		count[l]++
	}
	for _, l := range split(cur) {
		if count[l] > 0 {
			count[l]--
			continue
		}
		d.Added[section] = append(d.Added[section], l)
	}
	for _, l := range split(prev) {
		if count[l] > 0 {
			count[l]--
			d.Removed[section] = append(d.Removed[section], l)
		}
	}
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// delta turns cur into a watching delta against prev (the receiver): the
// required fields are present, but forms, interactive, listpattern and
// tableshape hold only added or changed entries, textpreview only the added
// lines, a11y and reader appear only when they changed; Diff names every
// change by key (ref, selector, line) with Removed listing what went away.
func (prev *Observation) delta(cur *Observation, capturedAt int64) *Observation {
	d := Compare(prev, cur)
	out := &Observation{
		SchemaVersion: cur.SchemaVersion,
		URL:           cur.URL,
		Title:         cur.Title,
		TextLength:    cur.TextLength,
		Forms:         []Form{},
		Interactive:   []Element{},
		CapturedAt:    capturedAt,
		Mode:          ModeWatching,
		Delta:         true,
		Digest:        cur.Digest,
		Reserved:      cur.Reserved,
	}
	keys := &Diff{Base: prev.Digest, Added: map[string][]any{}, Removed: d.Removed, Changed: map[string][]any{}}
	for section, entries := range d.Added {
		for _, e := range entries {
			keys.Added[section] = append(keys.Added[section], entryKey(e))
		}
	}
	for section, entries := range d.Changed {
		for _, e := range entries {
			keys.Changed[section] = append(keys.Changed[section], entryKey(e))
		}
	}
	var added []string
	for _, l := range d.Added[SectionText] {
		added = append(added, l.(string))
	}
	out.TextPreview = strings.Join(added, "\n")
	if cur.ListPattern != nil {
		out.ListPattern = []ListPattern{}
	}
	if cur.TableShape != nil {
		out.TableShape = []TableShape{}
	}
	for _, m := range []map[string][]any{d.Added, d.Changed} {
		for _, e := range m[SectionForms] {
			out.Forms = append(out.Forms, e.(Form))
		}
		for _, e := range m[SectionInteractive] {
			out.Interactive = append(out.Interactive, e.(Element))
		}
		for _, e := range m[SectionListPattern] {
			out.ListPattern = append(out.ListPattern, e.(ListPattern))
		}
		for _, e := range m[SectionTableShape] {
			out.TableShape = append(out.TableShape, e.(TableShape))
		}
	}
	if len(d.Added[SectionA11y]) > 0 || len(d.Removed[SectionA11y]) > 0 {
		out.A11y = cur.A11y
	}
	if len(d.Changed[SectionReader]) > 0 {
		out.Reader = cur.Reader
		keys.Changed[SectionReader] = []any{"reader"}
	}
	out.Diff = keys
	return out
}

// entryKey names an entry of a diff in a delta: its ref or selector; a
// line or a scalar stands for itself.
func entryKey(e any) any {
	switch v := e.(type) {
	case Element:
		return v.Ref
	case Form:
		return v.Selector
	case ListPattern:
		return v.Item
	case TableShape:
		return v.Selector
	case *Reader:
		return "reader"
	}
	return e
}
