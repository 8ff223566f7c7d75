package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Each way a page or a tool can spell a secret is replaced.
func TestRedactorForms(t *testing.T) {
	t.Parallel()
	const plain, wide, marked = "hunter2-Secret/+?", "pässwörd-ünïcode", `a<b>&"c\d`
	r := NewRedactor([]string{plain, wide, marked, "abc"})
	goJSON := func(s string) string { b, _ := json.Marshal(s); return strings.Trim(string(b), `"`) }
	btoa := func(s string) string { // a page's btoa: one byte per character
		var b []byte
		for _, c := range s {
			b = append(b, byte(c))
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	for name, text := range map[string]string{
		"raw":                 plain,
		"go json":             goJSON(marked),
		"json in json":        goJSON(`{"k":"` + goJSON(marked) + `"}`),
		"non-ascii raw":       wide,
		"non-ascii \\u":       `p\u00e4ssw\u00f6rd-\u00fcn\u00efcode`,
		"non-ascii \\U":       `p\u00E4ssw\u00F6rd-\u00FCn\u00EFcode`,
		"query escape":        url.QueryEscape(plain),
		"path escape":         url.PathEscape(wide),
		"lower hex":           strings.ToLower(url.QueryEscape(wide)),
		"base64":              base64.StdEncoding.EncodeToString([]byte(plain)),
		"base64 url raw":      base64.RawURLEncoding.EncodeToString([]byte(wide)),
		"btoa latin-1":        btoa(wide),
		"inside base64, at 0": base64.StdEncoding.EncodeToString([]byte("xyz" + plain + "tail")),
		"inside base64, at 1": base64.StdEncoding.EncodeToString([]byte("x" + plain + "tail")),
		"inside base64, at 2": base64.StdEncoding.EncodeToString([]byte("xy" + plain + "tail")),
	} {
		got := r.String("before " + text + " after")
		if !strings.Contains(got, tabs.Redacted) || strings.Contains(got, text) {
			t.Errorf("%s: %q became %q", name, text, got)
		}
	}
	if got := r.String("abc and ordinary text"); got != "abc and ordinary text" {
		t.Errorf("a secret below the minimum length blanked text: %q", got)
	}
}

// A secret deep in a structured result leaves it, escapes intact, and a
// result with none is handed back as it was.
func TestRedactStructured(t *testing.T) {
	t.Parallel()
	r := NewRedactor([]string{`tok"en-1234`})
	in := map[string]any{"tabs": []any{map[string]any{"title": `x tok"en-1234 y`, "n": 12345678901234567}}, "json": `{"v":"tok\"en-1234"}`}
	out, changed := r.structured(in)
	raw, _ := json.Marshal(out)
	if !changed || strings.Contains(string(raw), "en-1234") || !json.Valid(raw) || !strings.Contains(string(raw), "12345678901234567") {
		t.Fatalf("%v %s", changed, raw)
	}
	clean := map[string]any{"a": "nothing here"}
	if out, changed := r.structured(clean); changed || out.(map[string]any)["a"] != "nothing here" {
		t.Fatalf("untouched result: %v %v", out, changed)
	}
}

// An error result is redacted too: its message, hint and text.
func TestRedactErrorResult(t *testing.T) {
	t.Parallel()
	s := &server{redact: NewRedactor([]string{"sekrit-value"})}
	res := s.redactResult(errorResult(errs.New(errs.ScriptError, "Uncaught Error: sekrit-value").WithHint("sekrit-value again")))
	raw, _ := json.Marshal(res.StructuredContent)
	if text := res.Content[0].(*mcp.TextContent).Text; strings.Contains(text+string(raw), "sekrit") {
		t.Fatalf("%s %s", text, raw)
	}
}

// FuzzRedactor: any secret and text give text without the secret, and no
// panic.
func FuzzRedactor(f *testing.F) {
	f.Add("pässwörd", "x pässwörd y")
	f.Add("a\"b\\c<d>", `"a\"b\\c\u003cd\u003e"`)
	f.Fuzz(func(t *testing.T, secret, text string) {
		r := NewRedactor([]string{secret})
		got := r.String(text)
		if len(secret) >= MinSecretLength && !strings.Contains(secret, tabs.Redacted) && strings.Contains(got, secret) && !strings.Contains(tabs.Redacted, secret) {
			// Only a secret that overlaps the replacement itself may survive.
			if !overlapsRedacted(secret) {
				t.Fatalf("secret %q survives in %q", secret, got)
			}
		}
	})
}

// overlapsRedacted: the secret can be rebuilt from the end or start of the
// replacement and the text around it.
func overlapsRedacted(secret string) bool {
	for i := 1; i < len(tabs.Redacted); i++ {
		if strings.HasPrefix(secret, tabs.Redacted[i:]) || strings.HasSuffix(secret, tabs.Redacted[:i]) {
			return true
		}
	}
	return false
}

func BenchmarkRedact(b *testing.B) {
	text := strings.Repeat("an ordinary observation line with a title, a url and some text; ", 200)
	for _, c := range []struct {
		name    string
		secrets []string
	}{{"none", nil}, {"three", []string{"hunter2-Secret", "pässwörd-ünïcode", "sk-live-0123456789abcdef"}}} {
		r := NewRedactor(c.secrets)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				r.String(text)
			}
		})
	}
}
