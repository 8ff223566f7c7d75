package observe

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Bounds of the text rendering.
const (
	renderTextLines  = 12  // lines of the text preview shown
	renderLineRunes  = 160 // each cut to this many characters
	renderFormFields = 12  // fields listed per form
)

// Render returns a compact text view of o, for an agent's or a person's eyes:
// title and URL, counts, the first lines of text, one line per form and one
// line per interactive element, e.g.
//
//	e3 button "Sign in" #login
//
// The JSON payload remains the complete answer; this is its summary.
func Render(o *Observation) string {
	var b strings.Builder
	title := o.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(&b, "%s %s\n", strconv.Quote(title), o.URL)

	tr := o.Truncated()
	fmt.Fprintf(&b, "text %d chars · %s · %s", o.TextLength, plural(len(o.Forms), "form"), plural(len(o.Interactive), "interactive element"))
	if tr != nil && tr.Interactive != nil {
		fmt.Fprintf(&b, " (+%d not listed; raise max_interactive)", tr.Interactive.Omitted)
	}
	if tr != nil && tr.Forms != nil {
		fmt.Fprintf(&b, " (+%d forms not listed)", tr.Forms.Omitted)
	}
	b.WriteByte('\n')

	if o.TextPreview != "" {
		lines := strings.Split(o.TextPreview, "\n")
		shown := min(len(lines), renderTextLines)
		for _, l := range lines[:shown] {
			b.WriteString("  ")
			b.WriteString(clip(l, renderLineRunes))
			b.WriteByte('\n')
		}
		switch {
		case shown < len(lines):
			fmt.Fprintf(&b, "  … %d more lines in textpreview\n", len(lines)-shown)
		case tr != nil && tr.TextPreview:
			fmt.Fprintf(&b, "  … preview cut at %d of %d chars\n", len([]rune(o.TextPreview)), o.TextLength)
		}
	}

	for _, f := range o.Forms {
		renderForm(&b, o.URL, &f)
	}
	for _, e := range o.Interactive {
		renderElement(&b, o.URL, &e)
	}
	renderSections(&b, o)
	return b.String()
}

// renderSections adds the optional sections: the a11y outline, the reader's
// article, list patterns, table shapes, vision and, for diffs and deltas,
// what changed.
func renderSections(b *strings.Builder, o *Observation) {
	if o.A11y != nil && o.A11y.Outline != "" {
		b.WriteString("a11y:\n")
		for _, l := range strings.Split(o.A11y.Outline, "\n") {
			b.WriteString("  " + l + "\n")
		}
		if o.A11y.Omitted > 0 {
			fmt.Fprintf(b, "  … %d more lines\n", o.A11y.Omitted)
		}
	}
	if r := o.Reader; r != nil {
		if !r.Found {
			b.WriteString("reader: no article found\n")
		} else {
			fmt.Fprintf(b, "reader %q", r.Title)
			if r.Byline != "" {
				fmt.Fprintf(b, " by %s", r.Byline)
			}
			fmt.Fprintf(b, " (%d chars):\n%s\n", r.Length, r.Markdown)
			if r.Truncated {
				b.WriteString("… markdown cut; raise max_chars\n")
			}
		}
	}
	for _, l := range o.ListPattern {
		fmt.Fprintf(b, "list %s ×%d [%s]", l.Item, l.Count, strings.Join(l.Fields, ", "))
		if len(l.Samples) > 0 {
			fmt.Fprintf(b, " e.g. %s", clip(fmt.Sprint(l.Samples[0]), 160))
		}
		b.WriteByte('\n')
	}
	for _, t := range o.TableShape {
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
	if v := o.Vision; v != nil {
		fmt.Fprintf(b, "screenshot %s (%d grounded)", v.Screenshot, len(v.Groundings))
		if v.OCRNote != "" {
			b.WriteString("; " + v.OCRNote)
		}
		b.WriteByte('\n')
		if v.OCR != "" {
			fmt.Fprintf(b, "ocr: %s\n", clip(strings.ReplaceAll(v.OCR, "\n", " "), 400))
		}
	}
	if d := o.Diff; d != nil {
		if o.Delta {
			b.WriteString("delta since " + d.Base)
		} else {
			b.WriteString("diff since " + d.Base)
		}
		if d.Empty() {
			b.WriteString(": no change\n")
			return
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
	}
	if o.Digest != "" {
		fmt.Fprintf(b, "digest %s\n", o.Digest)
	}
}

func renderForm(b *strings.Builder, page string, f *Form) {
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
	b.WriteString(":")
	for i, fd := range f.Fields {
		if i == renderFormFields {
			fmt.Fprintf(b, " +%d more", len(f.Fields)-i+f.Omitted)
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		name := fd.Label
		if name == "" {
			name = fd.Name
		}
		b.WriteByte(' ')
		if name != "" {
			b.WriteString(clip(name, 40))
			b.WriteByte(' ')
		}
		typ := fd.Type
		if typ == "" {
			typ = "text" // HTML's default, left out of the JSON
		}
		b.WriteString("[" + typ)
		if len(fd.Options) > 0 && (fd.Type == "radio" || strings.HasPrefix(fd.Type, "select")) {
			b.WriteString(": ")
			b.WriteString(optionList(fd.Options))
		}
		b.WriteByte(']')
		if fd.Required {
			b.WriteByte('*')
		}
		if fd.Disabled {
			b.WriteString(" disabled")
		}
		if fd.Checked {
			b.WriteString(" checked")
		}
	}
	if len(f.Fields) <= renderFormFields && f.Omitted > 0 {
		fmt.Fprintf(b, " +%d more", f.Omitted)
	}
	b.WriteByte('\n')
}

func optionList(opts []Option) string {
	const show = 5
	var parts []string
	for i, o := range opts {
		if i == show {
			parts = append(parts, fmt.Sprintf("+%d", len(opts)-show))
			break
		}
		s := o.Label
		if s == "" {
			s = o.Value
		}
		s = clip(s, 24)
		if o.Selected {
			s += "✓"
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
	}
	if e.Href != "" {
		b.WriteString(" -> " + shortURL(page, e.Href))
	}
	b.WriteByte('\n')
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

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
