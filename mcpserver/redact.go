package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tabwright/tabwright/engine/tabs"
)

// MinSecretLength is the shortest secret accepted: shorter ones would
// blank out ordinary text.
const MinSecretLength = 4

// minBase64Core is the shortest base64 run taken from the middle of a
// longer base64 string: shorter runs would match by chance in any blob.
const minBase64Core = 6

// Redactor hides configured secrets in every form this package can derive
// of them: the value itself, JSON-escaped, percent-encoded and base64.
// The forms are worked out once, longest first, so a longer form is
// replaced whole before a shorter one can cut it.
type Redactor struct {
	forms []string
}

// NewRedactor derives the forms of each secret; values shorter than
// MinSecretLength are ignored.
func NewRedactor(secrets []string) *Redactor {
	seen := map[string]bool{}
	r := &Redactor{}
	for _, s := range secrets {
		if len(s) < MinSecretLength {
			continue
		}
		for _, f := range secretForms(s) {
			if len(f) >= MinSecretLength && !seen[f] {
				seen[f] = true
				r.forms = append(r.forms, f)
			}
		}
	}
	sort.SliceStable(r.forms, func(i, j int) bool { return len(r.forms[i]) > len(r.forms[j]) })
	return r
}

// Active reports whether there is anything to hide.
func (r *Redactor) Active() bool { return r != nil && len(r.forms) > 0 }

// String replaces every form of every secret in s.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, f := range r.forms {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, tabs.Redacted)
		}
	}
	return s
}

// secretForms is every spelling of s a page or a tool result may carry.
func secretForms(s string) []string {
	var out []string
	for _, j := range jsonForms(s) {
		out = append(out, j)
		out = append(out, jsonForms(j)...) // JSON text inside a JSON string
	}
	out = append(out, percentForms(s)...)
	out = append(out, base64Forms([]byte(s))...)
	if l, ok := latin1(s); ok {
		out = append(out, base64Forms(l)...) // what a page's btoa() gives
	}
	return out
}

// jsonForms: s as the inside of a JSON string, as Go's encoder writes it
// (with and without HTML escapes), as JavaScript's JSON.stringify writes it,
// and with every non-ASCII character as a \u escape (lower and upper hex).
func jsonForms(s string) []string {
	goHTML, _ := json.Marshal(s)
	var noHTML strings.Builder
	enc := json.NewEncoder(&noHTML)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return []string{
		s,
		unquote(string(goHTML)),
		unquote(strings.TrimSuffix(noHTML.String(), "\n")),
		jsEscape(s, false, "0123456789abcdef"),
		jsEscape(s, true, "0123456789abcdef"),
		jsEscape(s, true, "0123456789ABCDEF"),
	}
}

func unquote(q string) string { return strings.TrimSuffix(strings.TrimPrefix(q, `"`), `"`) }

// jsEscape writes s the way JSON.stringify does: quote, backslash and the
// control characters escaped; with asciiOnly, every other non-ASCII
// character too (as UTF-16 \u escapes, surrogate pairs beyond the BMP).
func jsEscape(s string, asciiOnly bool, hex string) string {
	var b strings.Builder
	u := func(c uint16) {
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hex[c>>shift&0xf])
		}
	}
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || (asciiOnly && c > 0x7e && c <= 0xffff):
			u(uint16(c))
		case asciiOnly && c > 0xffff:
			c -= 0x10000
			u(uint16(0xd800 + c>>10))
			u(uint16(0xdc00 + c&0x3ff))
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// percentForms: s percent-encoded as a query value (space as +), as a path
// segment, as encodeURIComponent does, and as a browser leaves a typed URL
// (only spaces, controls and non-ASCII bytes escaped); each in upper and
// lower hex.
func percentForms(s string) []string {
	var out []string
	for _, p := range []string{
		url.QueryEscape(s),
		url.PathEscape(s),
		percentEscape(s, func(c byte) bool { return !isURIComponentSafe(c) }),
		percentEscape(s, func(c byte) bool { return c <= ' ' || c >= 0x7f }),
	} {
		out = append(out, p, lowerHexEscapes(p))
	}
	return out
}

func percentEscape(s string, escape func(byte) bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; escape(c) {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isURIComponentSafe: the bytes encodeURIComponent leaves as they are.
func isURIComponentSafe(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0
}

// lowerHexEscapes turns each %XX of an escaped string into lower hex.
func lowerHexEscapes(p string) string {
	b := []byte(p)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerHex(b[i+1]), lowerHex(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func lowerHex(c byte) byte {
	if 'A' <= c && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// base64Forms: the value encoded alone (standard and URL alphabets, padded
// and not), and the run of characters it always becomes inside a longer
// base64 string, for each of the three byte alignments it can start at.
func base64Forms(v []byte) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, enc.EncodeToString(v), enc.WithPadding(base64.NoPadding).EncodeToString(v))
		for lead := 0; lead < 3; lead++ {
			if core := base64Core(enc, v, lead); len(core) >= minBase64Core {
				out = append(out, core)
			}
		}
	}
	return out
}

// base64Core encodes v after lead bytes and keeps the characters whose six
// bits all come from v: those are the same whatever surrounds v.
func base64Core(enc *base64.Encoding, v []byte, lead int) string {
	full := enc.WithPadding(base64.NoPadding).EncodeToString(append(make([]byte, lead), v...))
	first := (8*lead + 5) / 6       // first character starting at or after v's first bit
	last := 8 * (lead + len(v)) / 6 // characters ending at or before v's last bit
	if first >= last || last > len(full) {
		return ""
	}
	return full[first:last]
}

// latin1 is s as one byte per character, when every character fits.
func latin1(s string) ([]byte, bool) {
	if !utf8.ValidString(s) {
		return nil, false
	}
	var out []byte
	wide := false
	for _, c := range s {
		if c > 0xff {
			return nil, false
		}
		wide = wide || c > 0x7f
		out = append(out, byte(c))
	}
	return out, wide
}

// structured hides the secrets in a result's JSON: every string (and
// object key) is decoded, redacted and encoded again, so a replacement
// never cuts an escape sequence. Each decoded string is checked, not the
// JSON text: a form escaped twice shows in that text escaped three times.
// A result with no secret comes back untouched.
func (r *Redactor) structured(v any) (any, bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return v, false
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var tree any
	if dec.Decode(&tree) != nil {
		return v, false
	}
	changed := false
	tree = r.walk(tree, &changed)
	if !changed {
		return v, false
	}
	return tree, true
}

func (r *Redactor) walk(v any, changed *bool) any {
	switch v := v.(type) {
	case string:
		out := r.String(v)
		*changed = *changed || out != v
		return out
	case []any:
		for i := range v {
			v[i] = r.walk(v[i], changed)
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[r.walk(k, changed).(string)] = r.walk(e, changed)
		}
		return out
	}
	return v
}
