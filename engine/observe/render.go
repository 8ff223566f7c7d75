package observe

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Render returns the text view of o, for clients that show a model only the
// text content: title and URL (unless the reader knows them, see Since),
// counts, the text preview, each form with
// every field and its ref (or selector), and one line per interactive
// element not already shown with a form, e.g.
//
//	e3 button "Sign in" #login
//
// It shows everything the JSON holds that an agent acts on, within the same
// bounds; what the bounds cut is said, with the option that gets it.
func Render(o *Observation) string {
	var b strings.Builder
	if o.Unchanged() {
		return unchangedNote(o.Digest) + "\n"
	}
	if !o.headKnown {
		title := o.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(&b, "%s %s\n", strconv.Quote(title), o.URL)
	}
	if l, ok := o.Reserved[ReservedLoading].(fmt.Stringer); ok {
		b.WriteString(l.String() + "\n")
	}

	tr := o.Truncated()
	fmt.Fprintf(&b, "text %d chars · %s · %s\n", o.TextLength, plural(len(o.Forms), "form"), plural(len(o.Interactive), "interactive element"))

	if o.TextPreview != "" {
		for _, l := range strings.Split(o.TextPreview, "\n") {
			b.WriteString(" ") // text is indented, the lines to act on are not
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if tr != nil && tr.TextPreview {
			fmt.Fprintf(&b, " … text cut at %d of %d chars (raise max_chars, or include reader)\n", len([]rune(o.TextPreview)), o.TextLength)
		}
	}

	shown := map[string]bool{} // refs shown with their form field
	for _, f := range o.Forms {
		renderForm(&b, o.URL, &f, shown)
	}
	for _, e := range o.Interactive {
		if !shown[e.Ref] {
			renderElement(&b, o.URL, &e)
		}
	}
	renderRepeats(&b, o.Repeated())
	renderPageTools(&b, o)
	renderCuts(&b, tr)
	renderFrames(&b, o)
	renderSections(&b, o)
	return b.String()
}

// renderRepeats writes the cards folded out of interactive: their shape,
// then one line per card with its index and labels.
func renderRepeats(b *strings.Builder, reps []Repeat) {
	for _, r := range reps {
		fmt.Fprintf(b, "cards %s, n %d-%d, each:", r.Card, r.From, r.To)
		for _, e := range r.Elements {
			fmt.Fprintf(b, " %s", e.Role)
			if e.Label != "" {
				fmt.Fprintf(b, " %q", e.Label)
			}
			if e.Selector != "" {
				b.WriteString(" " + e.Selector)
			}
			if e.In != nil {
				b.WriteString(" (only n " + numberList(e.In) + ")")
			}
			b.WriteByte(';')
		}
		b.WriteString(" labels by n:\n")
		// Cards of one label each go ten to a line ("12-21: ..."), which
		// costs far less than a line per card and keeps them easy to count.
		per := 1
		if oneLabelEach(r.Labels) {
			per = 10
		}
		for k := 0; k < len(r.Labels); k += per {
			end := min(k+per, len(r.Labels))
			if end-k == 1 {
				fmt.Fprintf(b, " %d", r.From+k)
			} else {
				fmt.Fprintf(b, " %d-%d:", r.From+k, r.From+end-1)
			}
			for _, row := range r.Labels[k:end] {
				for _, l := range row {
					fmt.Fprintf(b, " %q", l)
				}
			}
			b.WriteByte('\n')
		}
		b.WriteString("… their refs: observe with scope on one card, or give max_interactive\n")
	}
}

// numberList writes card indexes, runs of three or more as a range:
// 2,5,7-9.
func numberList(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, strconv.Itoa(ns[i])+"-"+strconv.Itoa(ns[j]))
		case j > i:
			parts = append(parts, strconv.Itoa(ns[i]), strconv.Itoa(ns[j]))
		default:
			parts = append(parts, strconv.Itoa(ns[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// oneLabelEach: every card has exactly one label of its own.
func oneLabelEach(rows [][]string) bool {
	for _, row := range rows {
		if len(row) != 1 {
			return false
		}
	}
	return true
}

// renderFrames says which child frames were not read inline, and why.
func renderFrames(b *strings.Builder, o *Observation) {
	list, _ := o.Reserved["frames"].([]FrameError)
	for _, f := range list {
		fmt.Fprintf(b, "… frame %s not read (%s): observe it with frame\n", framePath(&f.Frame), f.Error)
	}
}

// renderCuts says what the bounds left out of forms and interactive, and
// how to read it.
func renderCuts(b *strings.Builder, tr *Truncation) {
	if tr == nil {
		return
	}
	if c := tr.Interactive; c != nil {
		fmt.Fprintf(b, "… %d more interactive elements not listed: raise max_interactive (%d shown), or read part of the page with scope, a locator or frame\n", c.Omitted, c.Shown)
	}
	if c := tr.Forms; c != nil {
		fmt.Fprintf(b, "… %d more forms not listed: read them with scope\n", c.Omitted)
	}
}

// renderSections adds the optional sections: the a11y outline, the reader's
// article, list patterns, table shapes, vision and, for diffs and deltas,
// what changed.
func renderSections(b *strings.Builder, o *Observation) {
	renderA11y(b, o.A11y)
	renderReader(b, o.Reader)
	renderListPatterns(b, o.ListPattern)
	renderTableShapes(b, o.TableShape)
	renderVision(b, o.Vision)
	if o.Diff != nil && !renderDiff(b, o.Diff, o.Delta) {
		return // no change: nothing else to say
	}
	if o.Digest != "" {
		fmt.Fprintf(b, "digest %s\n", o.Digest)
	}
}

func renderA11y(b *strings.Builder, a *A11y) {
	if a == nil || a.Outline == "" {
		return
	}
	b.WriteString("a11y:\n")
	for _, l := range strings.Split(a.Outline, "\n") {
		b.WriteString("  " + l + "\n")
	}
	if a.Omitted > 0 {
		fmt.Fprintf(b, "  … %d more lines\n", a.Omitted)
	}
}

func renderReader(b *strings.Builder, r *Reader) {
	switch {
	case r == nil:
		return
	case !r.Found:
		b.WriteString("reader: no article found\n")
		return
	}
	fmt.Fprintf(b, "reader %q", r.Title)
	if r.Byline != "" {
		fmt.Fprintf(b, " by %s", r.Byline)
	}
	fmt.Fprintf(b, " (%d chars):\n%s\n", r.Length, r.Markdown)
	if r.Truncated {
		b.WriteString("… markdown cut; raise max_chars\n")
	}
}

func renderListPatterns(b *strings.Builder, lists []ListPattern) {
	for _, l := range lists {
		fmt.Fprintf(b, "list %s ×%d [%s]", l.Item, l.Count, strings.Join(l.Fields, ", "))
		if len(l.Samples) > 0 {
			fmt.Fprintf(b, " e.g. %s", clip(fmt.Sprint(l.Samples[0]), 160))
		}
		b.WriteByte('\n')
	}
}

func renderTableShapes(b *strings.Builder, tables []TableShape) {
	for _, t := range tables {
		fmt.Fprintf(b, "table %s", t.Selector)
		if t.Caption != "" {
			fmt.Fprintf(b, " %q", t.Caption)
		}
		fmt.Fprintf(b, " %d×%d", t.Rows, t.Cols)
		if len(t.Headers) > 0 {
			fmt.Fprintf(b, " [%s]", clip(strings.Join(t.Headers, " | "), 160))
		}
		b.WriteByte('\n')
	}
}

func renderVision(b *strings.Builder, v *Vision) {
	if v == nil {
		return
	}
	where := v.Screenshot
	if where == "" {
		where = "attached" // HideHost: the image is in the result, no file
	}
	fmt.Fprintf(b, "screenshot %s (%d grounded)", where, len(v.Groundings))
	if v.OCRNote != "" {
		b.WriteString("; " + v.OCRNote)
	}
	b.WriteByte('\n')
	if v.OCR != "" {
		fmt.Fprintf(b, "ocr: %s\n", clip(strings.ReplaceAll(v.OCR, "\n", " "), 400))
	}
}

// renderDiff says what changed since the base; false when nothing did.
func renderDiff(b *strings.Builder, d *Diff, delta bool) bool {
	if delta {
		b.WriteString("delta since " + d.Base)
	} else {
		b.WriteString("diff since " + d.Base)
	}
	if d.Empty() {
		b.WriteString(": no change\n")
		return false
	}
	b.WriteString(":\n")
	for _, kind := range []struct {
		name string
		m    map[string][]any
	}{{"+", d.Added}, {"-", d.Removed}, {"~", d.Changed}} {
		for _, section := range d.Sections() {
			if len(kind.m[section]) > 0 {
				fmt.Fprintf(b, "  %s %s: %d\n", kind.name, section, len(kind.m[section]))
			}
		}
	}
	return true
}

func renderForm(b *strings.Builder, page string, f *Form, shown map[string]bool) {
	if f.Synthetic {
		fmt.Fprintf(b, "fields %s", f.Selector)
	} else {
		method := f.Method
		if method == "" {
			method = "get"
		}
		fmt.Fprintf(b, "form %s %s %s", f.Selector, method, shortURL(page, f.Action))
	}
	if f.Name != "" {
		fmt.Fprintf(b, " %q", f.Name)
	}
	if f.Frame != nil {
		b.WriteString(" in frame " + framePath(f.Frame))
	}
	b.WriteString(":\n")
	for _, fd := range f.Fields {
		b.WriteString("  ")
		renderField(b, &fd, shown)
		b.WriteByte('\n')
	}
	if f.Omitted > 0 {
		fmt.Fprintf(b, "  … %d more fields not listed: observe with scope %s\n", f.Omitted, f.Selector)
	}
}

// renderField writes one field: its locator (the ref of a drawn control,
// else its selector), label, [type: options], * when required, state and
// value.
func renderField(b *strings.Builder, fd *Field, shown map[string]bool) {
	if fd.Ref != "" {
		shown[fd.Ref] = true
		b.WriteString(fd.Ref + " ")
	}
	name := fd.Label
	if name == "" {
		name = fd.Name
	}
	if name != "" {
		b.WriteString(strconv.Quote(name) + " ")
	}
	typ := fd.Type
	if typ == "" {
		typ = "text" // a decoded payload of another producer may leave it out
	}
	b.WriteString("[" + typ)
	if len(fd.Options) > 0 {
		b.WriteString(": ")
		b.WriteString(optionList(fd.Options, shown))
		if fd.Omitted > 0 {
			fmt.Fprintf(b, "|+%d", fd.Omitted)
		}
	}
	b.WriteByte(']')
	if fd.Required {
		b.WriteByte('*')
	}
	b.WriteString(" " + fd.Selector)
	for _, st := range []struct {
		on   bool
		word string
	}{{fd.Disabled, "disabled"}, {fd.Checked, "checked"}, {fd.ReadOnly, "readonly"}, {fd.Hidden, "hidden"}} {
		if st.on {
			b.WriteString(" " + st.word)
		}
	}
	if fd.Value != "" && fd.Type != "radio" && !strings.HasPrefix(fd.Type, "select") {
		shown := clip(fd.Value, 80)
		fmt.Fprintf(b, " =%q", shown)
		b.WriteString(valueCut(fd.Value, shown, fd.ValueLen, fd.Selector))
	} else if fd.Value != "" {
		fmt.Fprintf(b, " =%q", fd.Value)
	}
}

// optionList writes a field's options: label (or value), a radio's ref,
// ✓ for a chosen one of a multiple select.
func optionList(opts []Option, shown map[string]bool) string {
	parts := make([]string, 0, len(opts))
	for _, o := range opts {
		s := o.Label
		if s == "" {
			s = o.Value
		}
		s = clip(s, 40)
		if o.Label != "" && o.Value != "" && !strings.EqualFold(o.Value, o.Label) && len(opts) <= 12 {
			s += "=" + clip(o.Value, 24)
		}
		if o.Selected {
			s += "✓"
		}
		if o.Ref != "" {
			shown[o.Ref] = true
			s += " " + o.Ref
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "|")
}

func renderElement(b *strings.Builder, page string, e *Element) {
	fmt.Fprintf(b, "%s %s", e.Ref, e.Role)
	if e.Type != "" {
		b.WriteString(":" + e.Type)
	}
	if e.Label != "" {
		fmt.Fprintf(b, " %q", e.Label)
	}
	b.WriteString(" " + e.Selector)
	if e.Disabled {
		b.WriteString(" disabled")
	}
	if e.Checked {
		b.WriteString(" checked")
	}
	if e.Mixed {
		b.WriteString(" mixed")
	}
	if e.Expanded != nil {
		if *e.Expanded {
			b.WriteString(" expanded")
		} else {
			b.WriteString(" collapsed")
		}
	}
	if e.Selected {
		b.WriteString(" selected")
	}
	if e.Pressed {
		b.WriteString(" pressed")
	}
	if e.Value != "" {
		fmt.Fprintf(b, " =%q", e.Value)
		b.WriteString(valueCut(e.Value, e.Value, e.ValueLen, e.Selector))
	}
	if e.Href != "" {
		b.WriteString(" -> " + shortURL(page, e.Href))
	}
	if e.Frame != nil {
		b.WriteString(" in frame " + framePath(e.Frame))
	}
	b.WriteByte('\n')
}

// framePath writes a frame's path as a batch step takes it.
func framePath(f *FramePath) string {
	raw, _ := json.Marshal(f)
	return string(raw)
}

// shortURL drops the scheme and host of a URL on the page's own origin.
func shortURL(page, target string) string {
	p, err1 := url.Parse(page)
	t, err2 := url.Parse(target)
	if err1 != nil || err2 != nil || p.Scheme != t.Scheme || p.Host != t.Host || t.Host == "" {
		return clip(target, 120)
	}
	rel := t.EscapedPath()
	if rel == "" {
		rel = "/"
	}
	if t.RawQuery != "" {
		rel += "?" + t.RawQuery
	}
	if t.Fragment != "" {
		rel += "#" + t.EscapedFragment()
	}
	return clip(rel, 120)
}

// clip cuts s to n characters, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// valueCut says that a value was cut (the page cut it to value, whole
// characters long; the text shows shown) and how to read all of it.
func valueCut(value, shown string, whole int, selector string) string {
	if whole == 0 && shown == value {
		return ""
	}
	if whole == 0 {
		whole = len([]rune(value))
	}
	return fmt.Sprintf(" (cut: %d chars; observe with scope %q reads it whole)", whole, selector)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
